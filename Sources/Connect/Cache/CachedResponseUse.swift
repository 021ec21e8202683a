/// What a private cache does with a stored response for a new request (RFC 9111 §4, with
/// RFC 5861's `stale-while-revalidate`): a decision value from the response's freshness and
/// both messages' directives, tested with tables.
enum CachedResponseUse: Equatable, Sendable {
    /// Fresh enough for this request: answer with it, no network.
    case fresh
    /// Stale, and the request accepts it as it is (`max-stale`): answer with it, no network.
    case staleAccepted
    /// Stale within the response's `stale-while-revalidate`: answer with it, and revalidate in
    /// the background for the next request.
    case staleWhileRevalidating
    /// Ask the server first, with the stored response's validators (§4.3.1).
    case validate

    /// Decides for a stored response whose freshness is `freshness` and whose `Cache-Control`
    /// is `response`, and a request whose `Cache-Control` is `request` (`pragmaNoCache`: the
    /// request has `Pragma: no-cache` and no `Cache-Control`, §5.4).
    static func decide(
        freshness: CacheFreshness, response: CacheControl, request: CacheControl, pragmaNoCache: Bool = false
    ) -> CachedResponseUse {
        // §5.2.2.4 and §5.2.1.4: no-cache on either side means asking every time.
        if response.noCache || request.noCache || pragmaNoCache { return .validate }
        // §5.2.1.1: no older than the request's max-age.
        if let maxAge = request.maxAge, freshness.age > maxAge { return .validate }
        // Fresh (§4.2), and still fresh min-fresh seconds from now (§5.2.1.3).
        if freshness.isFresh, freshness.freshnessLeft >= request.minFresh ?? 0 { return .fresh }
        // Stale for this request. must-revalidate forbids using it without the server (§4.2.4).
        if response.mustRevalidate { return .validate }
        switch request.maxStale {
        case .any?: return .staleAccepted
        case .seconds(let limit)? where freshness.staleness <= limit: return .staleAccepted
        default: break
        }
        if let window = response.staleWhileRevalidate, freshness.staleness <= window, request.maxAge == nil,
            request.minFresh == nil
        {
            return .staleWhileRevalidating
        }
        return .validate
    }

    /// Whether a stale response may answer when the server cannot be reached or answers with
    /// 500, 502, 503 or 504 (RFC 5861 §4's `stale-if-error`, from either side), or always when
    /// the application opted in (`servesStaleOnError`). Never past `must-revalidate`.
    static func mayAnswerOnError(
        freshness: CacheFreshness, response: CacheControl, request: CacheControl, servesStaleOnError: Bool = false
    ) -> Bool {
        if freshness.isFresh { return true }
        if response.mustRevalidate || response.noCache { return false }
        if servesStaleOnError { return true }
        let window = max(response.staleIfError ?? -1, request.staleIfError ?? -1)
        return window >= 0 && freshness.staleness <= window
    }
}
