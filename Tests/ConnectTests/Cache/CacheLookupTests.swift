import Foundation
import Testing

@testable import Connect

/// What the cache does around one request, as values: before it goes out (``CacheLookup``: the
/// policy, the request's directives and the stored response's freshness) and with its response
/// (``CacheUpdate``: store, refresh on a 304, stand in for a failure, invalidate).
@Suite("HTTP cache lookups and updates")
struct CacheLookupTests {
    static let now = CacheDecisionTests.date
    static func headers(_ text: String) -> [HTTPHeader] {
        text.split(separator: "|").map { field in
            let parts = field.split(separator: ":", maxSplits: 1)
            return HTTPHeader(name: String(parts[0]), value: String(parts[1]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// A response stored `age` seconds ago (it was generated then), with `headers`.
    static func stored(_ headers: String, age: Int = 0, status: Int = 200) -> CachedResponse {
        CachedResponse(
            url: "https://example.com/a", status: status,
            headers: Self.headers(
                "Date: \(CacheDecisionTests.httpDate(now - age))" + (headers.isEmpty ? "" : "|\(headers)")),
            body: Data("stored".utf8), requestHeaders: [], requestTime: now - age, responseTime: now - age)
    }

    struct Lookup: Sendable, CustomTestStringConvertible {
        var name: String
        var method = "GET"
        var request = ""
        var options = false
        var policy = CachePolicy.useProtocolCachePolicy
        var stored: CachedResponse?
        var expected: CacheLookup
        var testDescription: String { name }
    }

    static let etag = "ETag: \"v1\""
    static let ifNoneMatch = [HTTPHeader(name: "If-None-Match", value: "\"v1\"")]

    static let lookups: [Lookup] = [
        Lookup(name: "nothing stored: fetch", expected: .fetch),
        Lookup(
            name: "fresh: a hit, with its age", stored: stored("Cache-Control: max-age=60", age: 10),
            expected: .answer(.hit, age: 10)),
        Lookup(
            name: "stale with an ETag: validate with it", stored: stored("Cache-Control: max-age=60|\(etag)", age: 61),
            expected: .validate(ifNoneMatch)),
        Lookup(
            name: "stale with Last-Modified: validate with it",
            stored: stored("Cache-Control: max-age=60|Last-Modified: Sun, 31 Dec 2023 00:00:00 GMT", age: 61),
            expected: .validate([HTTPHeader(name: "If-Modified-Since", value: "Sun, 31 Dec 2023 00:00:00 GMT")])),
        Lookup(
            name: "stale without validators: validate with none", stored: stored("Cache-Control: max-age=60", age: 61),
            expected: .validate([])),
        Lookup(name: "POST: bypass", method: "POST", stored: stored("Cache-Control: max-age=60"), expected: .bypass),
        Lookup(name: "HEAD: bypass", method: "HEAD", expected: .bypass),
        Lookup(
            name: "a range: bypass", request: "Range: bytes=0-1", stored: stored("Cache-Control: max-age=60"),
            expected: .bypass),
        Lookup(
            name: "the caller's own If-None-Match: bypass", request: "If-None-Match: \"x\"",
            stored: stored("Cache-Control: max-age=60"), expected: .bypass),
        Lookup(
            name: "a download or a stream: bypass", options: true, stored: stored("Cache-Control: max-age=60"),
            expected: .bypass),
        Lookup(
            name: "request no-cache: validate", request: "Cache-Control: no-cache",
            stored: stored("Cache-Control: max-age=60|\(etag)"), expected: .validate(ifNoneMatch)),
        Lookup(
            name: "Pragma: no-cache alone: validate", request: "Pragma: no-cache",
            stored: stored("Cache-Control: max-age=60|\(etag)"), expected: .validate(ifNoneMatch)),
        Lookup(
            name: "request max-age below the age: validate", request: "Cache-Control: max-age=5",
            stored: stored("Cache-Control: max-age=60|\(etag)", age: 10), expected: .validate(ifNoneMatch)),
        Lookup(
            name: "request max-stale: stale answers", request: "Cache-Control: max-stale=30",
            stored: stored("Cache-Control: max-age=60", age: 80), expected: .answer(.stale, age: 80)),
        Lookup(
            name: "request min-fresh past the lifetime: validate", request: "Cache-Control: min-fresh=30",
            stored: stored("Cache-Control: max-age=60", age: 40), expected: .validate([])),
        Lookup(
            name: "stale-while-revalidate: answer, revalidate behind",
            stored: stored("Cache-Control: max-age=60, stale-while-revalidate=30", age: 70),
            expected: .answerAndRevalidate(age: 70)),
        Lookup(
            name: "past stale-while-revalidate: validate",
            stored: stored("Cache-Control: max-age=60, stale-while-revalidate=30", age: 100), expected: .validate([])),
        Lookup(
            name: "only-if-cached, fresh: a hit", request: "Cache-Control: only-if-cached",
            stored: stored("Cache-Control: max-age=60"), expected: .answer(.hit, age: 0)),
        Lookup(
            name: "only-if-cached, stale: not cached", request: "Cache-Control: only-if-cached",
            stored: stored("Cache-Control: max-age=60", age: 61), expected: .failNotCached),
        Lookup(
            name: "only-if-cached, nothing stored: not cached", request: "Cache-Control: only-if-cached",
            expected: .failNotCached),
        Lookup(
            name: "only-if-cached on a POST: not cached", method: "POST", request: "Cache-Control: only-if-cached",
            expected: .failNotCached),
        Lookup(
            name: "reload ignoring the cache: fetch", policy: .reloadIgnoringLocalCacheData,
            stored: stored("Cache-Control: max-age=60"), expected: .fetch),
        Lookup(
            name: "reload revalidating, fresh: validate", policy: .reloadRevalidatingCacheData,
            stored: stored("Cache-Control: max-age=60|\(etag)"), expected: .validate(ifNoneMatch)),
        Lookup(
            name: "cache else load, stale: stale answers", policy: .returnCacheDataElseLoad,
            stored: stored("Cache-Control: max-age=60", age: 600), expected: .answer(.stale, age: 600)),
        Lookup(
            name: "cache else load, fresh: a hit", policy: .returnCacheDataElseLoad,
            stored: stored("Cache-Control: max-age=60"), expected: .answer(.hit, age: 0)),
        Lookup(name: "cache else load, nothing stored: fetch", policy: .returnCacheDataElseLoad, expected: .fetch),
        Lookup(
            name: "cache don't load, no-cache response: it answers", policy: .returnCacheDataDontLoad,
            stored: stored("Cache-Control: no-cache"), expected: .answer(.stale, age: 0)),
        Lookup(
            name: "cache don't load, nothing stored: not cached", policy: .returnCacheDataDontLoad,
            expected: .failNotCached),
        Lookup(
            name: "cache don't load, a POST: not cached", method: "POST", policy: .returnCacheDataDontLoad,
            expected: .failNotCached),
        Lookup(
            name: "must-revalidate past its lifetime ignores max-stale", request: "Cache-Control: max-stale",
            stored: stored("Cache-Control: max-age=60, must-revalidate", age: 61), expected: .validate([]))
    ]

    @Test(arguments: lookups)
    func beforeTheRequestGoesOut(_ lookup: Lookup) {
        let headers = lookup.request.isEmpty ? [] : Self.headers(lookup.request)
        let cacheable = CacheLookup.isCacheable(
            method: lookup.method, headers: headers, hasTransferOptions: lookup.options)
        let decided = CacheLookup.decide(
            headers: headers, cacheable: cacheable, policy: lookup.policy, stored: lookup.stored, now: Self.now)
        #expect(decided == lookup.expected)
    }

    struct Update: Sendable, CustomTestStringConvertible {
        var name: String
        var method = "GET"
        var request = ""
        var cacheable = true
        var validated: CachedResponse?
        var mayAnswerStale = false
        var status = 200
        var response = ""
        var expected: CacheUpdate
        var testDescription: String { name }
    }

    static let url = URL(string: "https://example.com/a")!

    static let updates: [Update] = [
        Update(name: "a 200 with max-age: stored", response: "Cache-Control: max-age=60", expected: .store),
        Update(name: "a 200 with no freshness at all: stored (heuristically cacheable)", expected: .store),
        Update(
            name: "a 201 without freshness: not stored, the stored one dropped", status: 201, expected: .removeStored),
        Update(name: "no-store: the stored one dropped", response: "Cache-Control: no-store", expected: .removeStored),
        Update(
            name: "Authorization without public: dropped", request: "Authorization: Bearer x",
            response: "Cache-Control: max-age=60", expected: .removeStored),
        Update(
            name: "Authorization with public: stored", request: "Authorization: Bearer x",
            response: "Cache-Control: public, max-age=60", expected: .store),
        Update(name: "a 500 without a stored response: kept out", status: 500, expected: .none),
        Update(
            name: "a 404 with max-age: stored", status: 404, response: "Cache-Control: max-age=60", expected: .store),
        Update(name: "a 301: stored", status: 301, response: "Location: /b", expected: .store),
        Update(
            name: "a 302 without freshness: not stored", status: 302, response: "Location: /b", expected: .removeStored),
        Update(
            name: "a matching 304: the stored response refreshed",
            validated: stored("Cache-Control: max-age=60|\(etag)|X-A: 1", age: 100),
            status: 304, response: "\(etag)|Cache-Control: max-age=120|Content-Length: 0",
            expected: .refreshStored(
                headers("Date: \(CacheDecisionTests.httpDate(now - 100))|X-A: 1|\(etag)|Cache-Control: max-age=120"))),
        Update(
            name: "a 304 for another ETag: fetched again", validated: stored(etag, age: 100), status: 304,
            response: "ETag: \"v2\"", expected: .refetch),
        Update(
            name: "a 200 to a validation: stored in its place", validated: stored(etag, age: 100),
            response: "ETag: \"v2\"", expected: .store),
        Update(
            name: "a 503 to a validation that may stand in", validated: stored(etag), mayAnswerStale: true, status: 503,
            expected: .answerStored),
        Update(name: "a 503 to a validation that may not", validated: stored(etag), status: 503, expected: .none),
        Update(
            name: "a 404 to a validation that may stand in: the 404, stored", validated: stored(etag),
            mayAnswerStale: true, status: 404, expected: .store),
        Update(
            name: "a 403 to a validation: not stored, the stored one kept", validated: stored(etag),
            mayAnswerStale: true, status: 403, expected: .none),
        Update(
            name: "a 304 to the caller's own conditional GET: its own", cacheable: false, status: 304, expected: .none),
        Update(
            name: "a POST: its URL invalidated", method: "POST", cacheable: false, status: 201,
            expected: .invalidate([url])),
        Update(
            name: "a PUT: its URL and the same origin's Location", method: "PUT", cacheable: false, status: 200,
            response: "Location: /b|Content-Location: https://other.example/c",
            expected: .invalidate([url, URL(string: "https://example.com/b")!])),
        Update(
            name: "a failed DELETE: nothing invalidated", method: "DELETE", cacheable: false, status: 500,
            expected: .none)
    ]

    @Test(arguments: updates)
    func withTheResponse(_ update: Update) {
        let decided = CacheUpdate.decide(
            method: update.method, url: Self.url,
            requestHeaders: update.request.isEmpty ? [] : Self.headers(update.request), cacheable: update.cacheable,
            validated: update.validated, mayAnswerStale: update.mayAnswerStale, status: update.status,
            headers: update.response.isEmpty ? [] : Self.headers(update.response))
        #expect(decided == update.expected)
    }

    @Test func aStoredResponseKeepsNoFieldOfTheHopItCameOver() {
        let received = Self.headers(
            "Connection: close, X-Hop|Keep-Alive: timeout=5|X-Hop: 1|TE: trailers|Upgrade: h2c|"
                + "Proxy-Authenticate: Basic|Proxy-Authentication-Info: a|Proxy-Authorization: b|"
                + "Proxy-Connection: keep-alive|Transfer-Encoding: chunked|ETag: \"a\"|Cache-Control: max-age=60")
        #expect(CacheStorability.storedFields(of: received) == Self.headers("ETag: \"a\"|Cache-Control: max-age=60"))
        // Names in any case, the fields `Connection` names as well.
        let mixedCase = Self.headers("connection: X-HOP|kEEP-aLIVE: 1|x-hop: 2|Age: 3|tE: trailers")
        #expect(CacheStorability.storedFields(of: mixedCase) == Self.headers("Age: 3"))
        // Nothing to drop: the same fields, in order.
        let plain = Self.headers("ETag: \"a\"|Age: 3|Vary: Accept")
        #expect(CacheStorability.storedFields(of: plain) == plain)
        // A 304's hop fields do not reach the stored response either.
        let refreshed = CacheUpdate.decide(
            method: "GET", url: Self.url, requestHeaders: [], cacheable: true, validated: Self.stored(Self.etag),
            mayAnswerStale: false, status: 304,
            headers: Self.headers("\(Self.etag)|Connection: X-A|X-A: 1|Keep-Alive: 5"))
        #expect(
            refreshed == .refreshStored(Self.headers("Date: \(CacheDecisionTests.httpDate(Self.now))|\(Self.etag)")))
    }
}
