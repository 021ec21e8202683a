/// What a ``ResponseCache`` does with a request before it goes out: a decision value from the
/// request, its ``CachePolicy`` and the stored response that answers it, tested with tables.
enum CacheLookup: Equatable, Sendable {
    /// Not the cache's to answer or store: sent as it is (see ``isCacheable(method:headers:hasTransferOptions:)``).
    case bypass
    /// Sent; its response is stored if it may be.
    case fetch
    /// Answered with the stored response, no network; `hit` when it is fresh, else `stale`.
    /// `age`: its age in seconds (§4.2.3), which the answer's `Age` field carries (§5.1).
    case answer(CacheStatus, age: Int)
    /// Answered with the stored, stale response at once, and revalidated in the background
    /// (`stale-while-revalidate`, RFC 5861 §3).
    case answerAndRevalidate(age: Int)
    /// Sent with these headers added, the stored response's validators (RFC 9111 §4.3.1); none
    /// when it has no validator, and the request then fetches the whole response again. The
    /// stored response answers a 304, and a failure where it may.
    case validate([HTTPHeader])
    /// Failed without the network: only the cache may answer, and nothing stored does.
    case failNotCached

    /// The request's headers that make it a request for part of a response, or a conditional
    /// request of the caller's own: its answer (a 206, a 304, a 412) is the caller's, not the
    /// cache's.
    static let bypassingFields = [
        "Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"
    ]

    /// Whether the cache may answer or store a response to a request with `method` and
    /// `headers`: a `GET` for a whole response, to keep in memory (`hasTransferOptions`: a
    /// download to a file, a stream, an event stream, whose body never is).
    static func isCacheable(method: String, headers: [HTTPHeader], hasTransferOptions: Bool) -> Bool {
        method == "GET" && !hasTransferOptions && !headers.contains(nameAmong: bypassingFields)
    }

    /// Decides for a request with `headers` under `policy`: `cacheable`, whether the cache
    /// answers such a request (``isCacheable(method:headers:hasTransferOptions:)``, which the
    /// caller has worked out to look for `stored`); `stored`, the stored response that answers
    /// it (nil when none does); `now`, the time in whole seconds since 1970.
    static func decide(
        headers: [HTTPHeader], cacheable: Bool, policy: CachePolicy, stored: CachedResponse?, now: Int
    ) -> CacheLookup {
        let request = CacheControl(headers: headers)
        // §5.2.1.7: only-if-cached asks for a stored response or none; so does the policy.
        let onlyFromCache = policy == .returnCacheDataDontLoad || request.onlyIfCached
        guard cacheable else {
            return onlyFromCache ? .failNotCached : .bypass
        }
        if policy == .reloadIgnoringLocalCacheData { return .fetch }
        guard let stored else { return onlyFromCache ? .failNotCached : .fetch }
        let freshness = stored.freshness(at: now)
        switch policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return .answer(freshness.isFresh ? .hit : .stale, age: freshness.age)
        case .reloadRevalidatingCacheData:
            return .validate(stored.conditionalHeaders)
        case .useProtocolCachePolicy, .reloadIgnoringLocalCacheData:
            break
        }
        let pragmaNoCache =
            !headers.contains(name: "Cache-Control")
            && headers.contains { $0.hasName("Pragma") && $0.value.lowercased().contains("no-cache") }
        switch CachedResponseUse.decide(
            freshness: freshness, response: stored.control, request: request,
            pragmaNoCache: pragmaNoCache)
        {
        case .fresh: return .answer(.hit, age: freshness.age)
        case .staleAccepted: return .answer(.stale, age: freshness.age)
        case .staleWhileRevalidating:
            return onlyFromCache ? .answer(.stale, age: freshness.age) : .answerAndRevalidate(age: freshness.age)
        case .validate:
            return onlyFromCache ? .failNotCached : .validate(stored.conditionalHeaders)
        }
    }
}
