#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored response: a variant of a URL's response, with what the cache needs to judge it
/// later (RFC 9111 §3): the request fields its `Vary` names as the request sent them, and the
/// times its request went out and it arrived (whole seconds since 1970).
///
/// A class of constants: a store's index, a lookup and the response it makes share one
/// instance instead of copying a dozen fields at each step.
final class CachedResponse: Equatable, Sendable {
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
    /// Its validators as a conditional request's fields (``CacheValidation/conditionalHeaders(for:)``),
    /// found once.
    let conditionalHeaders: [HTTPHeader]

    /// The response for `url` with `status`, `headers` and `body`, to a request with
    /// `requestHeaders`, keeping of those only the fields its `Vary` names.
    convenience init(
        url: String, status: Int, headers: [HTTPHeader], body: Data, requestHeaders: [HTTPHeader], requestTime: Int,
        responseTime: Int, httpVersion: String = "1.1"
    ) {
        let vary = CacheVariant.varyingFields(of: headers)
        self.init(
            url: url, status: status, headers: headers, body: body, vary: vary,
            varyingRequestHeaders: requestHeaders.fields(namedAmong: vary),
            requestTime: requestTime, responseTime: responseTime, httpVersion: httpVersion,
            control: CacheControl(headers: headers),
            conditionalHeaders: CacheValidation.conditionalHeaders(for: headers))
    }

    /// Every part given but the freshness basis, which is reckoned from them.
    private init(
        url: String, status: Int, headers: [HTTPHeader], body: Data, vary: [String],
        varyingRequestHeaders: [HTTPHeader], requestTime: Int, responseTime: Int, httpVersion: String,
        control: CacheControl, conditionalHeaders: [HTTPHeader]
    ) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.vary = vary
        self.varyingRequestHeaders = varyingRequestHeaders
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.httpVersion = httpVersion
        self.control = control
        self.conditionalHeaders = conditionalHeaders
        freshnessBasis = CacheFreshness.Basis(
            status: status, headers: headers, control: control, requestTime: requestTime, responseTime: responseTime)
    }

    /// How fresh it is at `now` (§4.2).
    func freshness(at now: Int) -> CacheFreshness {
        CacheFreshness(basis: freshnessBasis, now: now)
    }

    /// This response after a 304 (§4.3.4): `headers` in place of its own, and the times of the
    /// request that revalidated it. When the 304 changed no field (a server repeating its
    /// validators and `Cache-Control`, the usual case), only the freshness basis is reckoned again.
    func refreshed(headers: [HTTPHeader], requestTime: Int, responseTime: Int) -> CachedResponse {
        guard headers == self.headers else {
            return CachedResponse(
                url: url, status: status, headers: headers, body: body, requestHeaders: varyingRequestHeaders,
                requestTime: requestTime, responseTime: responseTime, httpVersion: httpVersion)
        }
        return CachedResponse(
            url: url, status: status, headers: headers, body: body, vary: vary,
            varyingRequestHeaders: varyingRequestHeaders, requestTime: requestTime, responseTime: responseTime,
            httpVersion: httpVersion, control: control, conditionalHeaders: conditionalHeaders)
    }

    /// What it takes of a cache's capacity: its body, its fields and the request's, and the
    /// URL.
    var byteCount: Int {
        func size(_ fields: [HTTPHeader]) -> Int {
            fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        }
        return body.count + size(headers) + size(varyingRequestHeaders) + url.utf8.count
    }

    /// The same response: what it was made from is the same (the rest is worked out from that).
    static func == (first: CachedResponse, second: CachedResponse) -> Bool {
        first === second
            || (first.url == second.url && first.status == second.status && first.headers == second.headers
                && first.body == second.body && first.varyingRequestHeaders == second.varyingRequestHeaders
                && first.requestTime == second.requestTime && first.responseTime == second.responseTime
                && first.httpVersion == second.httpVersion)
    }

    /// Whether it answers a request with `requestHeaders` (§4.1).
    func answers(_ requestHeaders: [HTTPHeader]) -> Bool {
        CacheVariant.matches(vary: vary, storedRequestHeaders: varyingRequestHeaders, requestHeaders: requestHeaders)
    }
}
