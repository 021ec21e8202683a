#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored response: a variant of a URL's response, with what the cache needs to judge it
/// later (RFC 9111 §3): the request fields its `Vary` names as the request sent them, and the
/// times its request went out and it arrived (whole seconds since 1970).
struct CachedResponse: Equatable, Sendable {
    /// The URL it answers, as the cache keys it.
    let url: String
    let status: Int
    let headers: [HTTPHeader]
    let body: Data
    /// The fields `Vary` names, lowercased (see ``CacheVariant/varyingFields(of:)``).
    let vary: [String]
    /// The request's fields `vary` names, as that request sent them.
    let varyingRequestHeaders: [HTTPHeader]
    let requestTime: Int
    let responseTime: Int
    /// The HTTP version it came over, e.g. `"2"`.
    let httpVersion: String
    /// Its `Cache-Control`, read once.
    let control: CacheControl
    /// What its freshness is reckoned from, worked out once.
    let freshnessBasis: CacheFreshness.Basis

    /// The response for `url` with `status`, `headers` and `body`, to a request with
    /// `requestHeaders`, keeping of those only the fields its `Vary` names.
    init(
        url: String, status: Int, headers: [HTTPHeader], body: Data, requestHeaders: [HTTPHeader], requestTime: Int,
        responseTime: Int, httpVersion: String = "1.1"
    ) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        let vary = CacheVariant.varyingFields(of: headers)
        self.vary = vary
        varyingRequestHeaders = requestHeaders.filter { header in vary.contains { header.hasName($0) } }
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.httpVersion = httpVersion
        control = CacheControl(headers: headers)
        freshnessBasis = CacheFreshness.Basis(
            status: status, headers: headers, control: control, requestTime: requestTime, responseTime: responseTime)
    }

    /// How fresh it is at `now` (§4.2).
    func freshness(at now: Int) -> CacheFreshness {
        CacheFreshness(basis: freshnessBasis, now: now)
    }

    /// This response after a 304 (§4.3.4): `headers` in place of its own, and the times of the
    /// request that revalidated it.
    func refreshed(headers: [HTTPHeader], requestTime: Int, responseTime: Int) -> CachedResponse {
        CachedResponse(
            url: url, status: status, headers: headers, body: body, requestHeaders: varyingRequestHeaders,
            requestTime: requestTime, responseTime: responseTime, httpVersion: httpVersion)
    }

    /// What it takes of a cache's capacity: its body, its fields and the request's, and the
    /// URL.
    var byteCount: Int {
        let fields = (headers + varyingRequestHeaders).reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        return body.count + fields + url.utf8.count
    }

    /// Whether it answers a request with `requestHeaders` (§4.1).
    func answers(_ requestHeaders: [HTTPHeader]) -> Bool {
        CacheVariant.matches(vary: vary, storedRequestHeaders: varyingRequestHeaders, requestHeaders: requestHeaders)
    }
}
