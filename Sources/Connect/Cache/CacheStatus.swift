/// Where a response came from when the client has a ``ResponseCache``: ``Response/cacheStatus``.
///
/// Middleware, monitors, tracing spans (`connect.cache.status`) and `debugResponse` output see it
/// like any other property of the response.
public enum CacheStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// A stored response, fresh for this request: no network.
    case hit
    /// A stored response the server confirmed with `304 Not Modified`: one round trip, no body.
    case revalidated
    /// From the network: nothing was stored, or the stored response was replaced by this one.
    case miss
    /// A stored response past its freshness, served as the response, the request's directives or
    /// the policy allow: within `max-stale` or `stale-while-revalidate`, after a failure within
    /// `stale-if-error` (or ``ResponseCache/servesStaleOnError``), or by
    /// ``CachePolicy/returnCacheDataElseLoad`` and ``CachePolicy/returnCacheDataDontLoad``.
    case stale

    /// The status's name, as tracing spans and `debugResponse` output show it: `hit`,
    /// `revalidated`, `miss` or `stale`.
    public var description: String { rawValue }
}
