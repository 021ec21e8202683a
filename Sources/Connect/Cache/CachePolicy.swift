/// How a request uses the client's ``ResponseCache``: URLRequest's cache policies, under the
/// same names.
///
/// Set it on a ``Connector`` or a ``Request`` (``Request/cachePolicy``), or for every request in
/// ``ConnectConfiguration/cachePolicy``. Without a cache in the configuration, every policy
/// loads from the network, except ``returnCacheDataDontLoad``, which then always fails.
///
/// Only `GET` requests are answered from the cache. A request with `Range`, with conditional
/// headers of its own (`If-None-Match`, `If-Modified-Since`, …), a download to a file, a stream
/// or an event stream goes to the network as it is, and its response is not stored.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111's rules: a fresh stored response answers at once, a stale one is revalidated
    /// (or served while it is revalidated, or when the server fails, where the response allows
    /// it), the request's own `Cache-Control` directives honoured. The default.
    case useProtocolCachePolicy
    /// Loads from the network without looking in the cache; the response is stored for later
    /// requests as the protocol allows.
    case reloadIgnoringLocalCacheData
    /// Revalidates a stored response with the server every time, however fresh it is.
    case reloadRevalidatingCacheData
    /// Answers with a stored response whatever its age; loads from the network only when none is
    /// stored. For showing something at once, then refreshing it with another policy.
    case returnCacheDataElseLoad
    /// Answers with a stored response whatever its age, and never loads: with none stored the
    /// request fails with ``TransportFailure/Kind/notCached``. For working offline.
    case returnCacheDataDontLoad
}
