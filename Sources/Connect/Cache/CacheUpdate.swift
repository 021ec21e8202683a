#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a ``ResponseCache`` does with the response to a request it let go out: a decision value
/// from the request, the stored response it was validating (if any) and the response, tested
/// with tables.
enum CacheUpdate: Equatable, Sendable {
    /// Nothing stored or dropped; the response goes on as it is.
    case none
    /// The response is stored, and goes on as a ``CacheStatus/miss``.
    case store
    /// The response may not be stored and the stored one for its URL is outdated: dropped. The
    /// response goes on as a miss.
    case removeStored
    /// A 304 confirmed the stored response: stored again with these headers (§4.3.4) and the
    /// response's times, it answers as ``CacheStatus/revalidated``.
    case refreshStored([HTTPHeader])
    /// A 304 for another representation than the stored one (§4.3.3): the request goes out
    /// again without validators.
    case refetch
    /// The server failed with 500, 502, 503 or 504 and the stored response may answer in its
    /// place: it answers as ``CacheStatus/stale``.
    case answerStored
    /// An unsafe request changed what these URLs name: their stored responses are dropped
    /// (§4.4).
    case invalidate([URL])

    /// The statuses of a server's failure that a stale response may stand in for (RFC 5861 §4).
    static let serverFailures: Set<Int> = [500, 502, 503, 504]

    /// Decides for the response with `status` and `headers` to a request with `method`,
    /// `url` and `requestHeaders`. `cacheable`: whether the cache answers and stores such a
    /// request (``CacheLookup/isCacheable(method:headers:hasTransferOptions:)``); `validated`:
    /// the stored response the request carried validators for, if any; `mayAnswerStale`:
    /// whether that response may stand in for a failure (``CachedResponseUse/mayAnswerOnError(freshness:response:request:servesStaleOnError:)``).
    static func decide(
        method: String, url: URL, requestHeaders: [HTTPHeader], cacheable: Bool, validated: CachedResponse?,
        mayAnswerStale: Bool, status: Int, headers: [HTTPHeader]
    ) -> CacheUpdate {
        guard cacheable else {
            let urls = CacheInvalidation.invalidatedURLs(method: method, url: url, status: status, headers: headers)
            return urls.isEmpty ? .none : .invalidate(urls)
        }
        if let validated {
            if status == 304 {
                guard CacheValidation.notModifiedMatches(stored: validated.headers, notModified: headers) else {
                    return .refetch
                }
                return .refreshStored(CacheValidation.headers(updating: validated.headers, with: headers))
            }
            if serverFailures.contains(status), mayAnswerStale { return .answerStored }
        }
        switch CacheStorability.decide(method: method, requestHeaders: requestHeaders, status: status, headers: headers)
        {
        case .storable:
            return .store
        case .notStorable:
            // A final response that may not be stored says the stored one is out of date; a
            // failure, an interim response or a 304 the caller asked for says nothing about it.
            return (200..<400).contains(status) && status != 304 ? .removeStored : .none
        }
    }
}
