import Foundation
import Testing

@testable import Connect

/// RFC 9111's decisions as values, from the RFC's rules, with a clock passed in: directives,
/// freshness and age, what may be stored, which variant answers, what a stored response is good
/// for, revalidation and invalidation.
@Suite("HTTP cache decisions")
struct CacheDecisionTests {
    static let date = 1_704_067_200  // Mon, 01 Jan 2024 00:00:00 GMT
    static let dateText = "Mon, 01 Jan 2024 00:00:00 GMT"

    static func headers(_ pairs: [(String, String)]) -> [HTTPHeader] {
        pairs.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    /// `seconds` since 1970 as an IMF-fixdate, or in RFC 850's form.
    static func httpDate(_ seconds: Int, rfc850: Bool = false) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = rfc850 ? "EEEE, dd-MMM-yy HH:mm:ss 'GMT'" : "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    // MARK: Cache-Control

    @Test(
        arguments: [
            ("max-age=60", 60, false), ("max-age=\"60\"", 60, false), ("MAX-AGE=60, no-cache", 60, false),
            ("max-age=60, max-age=60", 60, false), ("max-age=60, max-age=30", 60, true), ("max-age=abc", nil, true),
            ("max-age=-1", nil, true), ("max-age=", nil, true), ("max-age=99999999999999", 2_147_483_648, false),
            ("max-age=5 garbage", nil, false), ("foo=\"a,b\", max-age=7", 7, false), (" , ,max-age=8,", 8, false)
        ] as [(String, Int?, Bool)])
    func maxAgeIsReadOrFoundInvalid(value: String, maxAge: Int?, invalid: Bool) {
        let control = CacheControl(value)
        #expect(control.maxAge == maxAge, "\(value)")
        #expect(control.hasInvalidFreshness == invalid, "\(value)")
    }

    @Test func everyDirectiveIsRead() {
        let response = CacheControl(
            headers: Self.headers([
                ("Cache-Control", #"private="Set-Cookie, X-Y", no-cache="a, b", must-revalidate"#),
                ("cache-control", "public, immutable, s-maxage=10, stale-while-revalidate=30, stale-if-error=600"),
                ("Cache-Control", "no-store, proxy-revalidate")
            ]))
        #expect(response.isPrivate && response.noCache && response.mustRevalidate && response.isPublic)
        #expect(response.immutable && response.noStore && response.proxyRevalidate)
        #expect(response.sharedMaxAge == 10 && response.staleWhileRevalidate == 30 && response.staleIfError == 600)
        let request = CacheControl("max-stale, min-fresh=5, only-if-cached")
        #expect(request.maxStale == .any && request.minFresh == 5 && request.onlyIfCached)
        #expect(CacheControl("max-stale=20").maxStale == .seconds(20))
        #expect(CacheControl("max-stale=soon").maxStale == nil)
        #expect(CacheControl("").maxAge == nil && !CacheControl("").noCache)
        #expect(CacheControl.directives(in: #"a="x\"y", b=c"#).map(\.argument) == [#"x"y"#, "c"])
    }

    // MARK: Freshness and age

    static func freshness(
        _ pairs: [(String, String)], status: Int = 200, requestTime: Int = date, responseTime: Int = date,
        now: Int = date
    ) -> CacheFreshness {
        CacheFreshness(
            status: status, headers: headers(pairs), requestTime: requestTime, responseTime: responseTime, now: now)
    }

    @Test func theLifetimeComesFromMaxAgeThenExpiresThenAHeuristic() {
        let expires = ("Expires", "Mon, 01 Jan 2024 01:00:00 GMT")
        #expect(Self.freshness([("Date", Self.dateText), ("Cache-Control", "max-age=60"), expires]).lifetime == 60)
        let byExpires = Self.freshness([("Date", Self.dateText), expires])
        #expect(byExpires.lifetime == 3600 && byExpires.source == .expires)
        // An Expires that is not a date, or two that differ: already stale.
        #expect(Self.freshness([("Date", Self.dateText), ("Expires", "0")]).lifetime == 0)
        #expect(Self.freshness([("Date", Self.dateText), expires, ("Expires", Self.dateText)]).lifetime == 0)
        #expect(Self.freshness([("Date", Self.dateText), ("Cache-Control", "max-age=x"), expires]).source == .none)
        // A tenth of the time since Last-Modified (ten days: one day), for a status that allows it.
        let lastModified = ("Last-Modified", "Fri, 22 Dec 2023 00:00:00 GMT")
        let heuristic = Self.freshness([("Date", Self.dateText), lastModified])
        #expect(heuristic.lifetime == 86_400 && heuristic.source == .heuristic)
        #expect(Self.freshness([("Date", Self.dateText), lastModified], status: 302).source == .none)
        #expect(
            Self.freshness([("Date", Self.dateText), lastModified, ("Cache-Control", "public")], status: 302).lifetime
                == 86_400)
        #expect(Self.freshness([("Date", Self.dateText)]).lifetime == 0)
    }

    @Test(
        arguments: [
            // Age header, Date offset from the response time, request→response delay, resident time: age
            (nil, 0, 0, 0, 0), (nil, 0, 0, 100, 100), ("30", 0, 0, 0, 30), ("30", 0, 5, 10, 45),
            (nil, -50, 0, 0, 50), ("10", -50, 2, 0, 50), (nil, 50, 0, 0, 0), ("abc", 0, 0, 7, 7),
            ("99999999999", 0, 0, 0, 2_147_483_648),
            // §5.1: a list's first member; a value that is not a number is ignored.
            ("7200, 0", 0, 0, 0, 7200), ("7200;foo=bar", 0, 0, 3, 3), (" 40 ", 0, 0, 0, 40)
        ] as [(String?, Int, Int, Int, Int)])
    func theAgeIsReckonedAsSection423Says(age: String?, dateOffset: Int, delay: Int, resident: Int, expected: Int) {
        let responseTime = Self.date
        let date = Self.httpDate(responseTime + dateOffset)
        var pairs = [("Date", date)]
        if let age { pairs.append(("Age", age)) }
        let freshness = Self.freshness(
            pairs, requestTime: responseTime - delay, responseTime: responseTime, now: responseTime + resident)
        #expect(freshness.age == expected)
    }

    // MARK: Storing

    @Test(
        arguments: [
            ("GET", [], 200, [], CacheStorability.storable),
            ("HEAD", [], 200, [], .notStorable(.method)),
            ("POST", [], 200, [("Cache-Control", "max-age=60")], .notStorable(.method)),
            ("GET", [], 206, [("Cache-Control", "max-age=60")], .notStorable(.status)),
            ("GET", [], 302, [], .notStorable(.noFreshnessInformation)),
            ("GET", [], 302, [("Cache-Control", "max-age=60")], .storable),
            ("GET", [], 500, [("Expires", "Mon, 01 Jan 2024 01:00:00 GMT")], .storable),
            ("GET", [], 404, [], .storable),
            ("GET", [], 200, [("Cache-Control", "private")], .storable),
            ("GET", [], 200, [("Cache-Control", "no-cache")], .storable),
            ("GET", [], 200, [("Cache-Control", "no-store")], .notStorable(.noStore)),
            ("GET", [("Cache-Control", "no-store")], 200, [], .notStorable(.noStore)),
            (
                "GET", [("Authorization", "Bearer t")], 200, [("Cache-Control", "max-age=60")],
                .notStorable(.authorization)
            ),
            ("GET", [("Authorization", "Bearer t")], 200, [("Cache-Control", "public, max-age=60")], .storable),
            ("GET", [("Authorization", "Bearer t")], 200, [("Cache-Control", "must-revalidate")], .storable),
            ("GET", [("Authorization", "Bearer t")], 200, [("Cache-Control", "s-maxage=5")], .storable),
            ("GET", [], 200, [("Vary", "Accept, *")], .notStorable(.varyAll)),
            ("GET", [], 200, [("Vary", "Accept-Encoding")], .storable)
        ] as [(String, [(String, String)], Int, [(String, String)], CacheStorability)])
    func whatMayBeStored(
        method: String, request: [(String, String)], status: Int, response: [(String, String)],
        expected: CacheStorability
    ) {
        #expect(
            CacheStorability.decide(
                method: method, requestHeaders: Self.headers(request), status: status, headers: Self.headers(response))
                == expected)
    }

    // MARK: Using a stored response

    @Test(
        arguments: [
            // response directives, age in seconds, request directives: the use (lifetime 100 s by max-age)
            ("", 10, "", CachedResponseUse.fresh), ("", 100, "", .validate), ("", 150, "", .validate),
            ("no-cache", 10, "", .validate), ("", 10, "no-cache", .validate), ("", 10, "max-age=5", .validate),
            ("", 10, "max-age=10", .fresh), ("", 90, "min-fresh=10", .fresh), ("", 91, "min-fresh=10", .validate),
            ("", 150, "max-stale", .staleAccepted), ("", 150, "max-stale=50", .staleAccepted),
            ("", 151, "max-stale=50", .validate), ("must-revalidate", 150, "max-stale", .validate),
            ("stale-while-revalidate=60", 150, "", .staleWhileRevalidating),
            ("stale-while-revalidate=60", 161, "", .validate),
            ("stale-while-revalidate=60, must-revalidate", 150, "", .validate)
        ] as [(String, Int, String, CachedResponseUse)])
    func whatAStoredResponseIsGoodFor(response: String, age: Int, request: String, expected: CachedResponseUse) {
        let control = "max-age=100" + (response.isEmpty ? "" : ", " + response)
        let freshness = Self.freshness(
            [("Date", Self.dateText), ("Cache-Control", control)], now: Self.date + age)
        #expect(
            CachedResponseUse.decide(
                freshness: freshness, response: CacheControl(control), request: CacheControl(request)) == expected)
    }

    @Test func pragmaNoCacheAsksTheServerAndStaleIfErrorAnswersForAWhile() {
        let freshness = Self.freshness([("Date", Self.dateText), ("Cache-Control", "max-age=100")], now: Self.date + 10)
        #expect(
            CachedResponseUse.decide(
                freshness: freshness, response: CacheControl("max-age=100"), request: CacheControl(),
                pragmaNoCache: true)
                == .validate)
        func onError(_ control: String, age: Int, request: String = "", optIn: Bool = false) -> Bool {
            let freshness = Self.freshness([("Date", Self.dateText), ("Cache-Control", control)], now: Self.date + age)
            return CachedResponseUse.mayAnswerOnError(
                freshness: freshness, response: CacheControl(control), request: CacheControl(request),
                servesStaleOnError: optIn)
        }
        #expect(onError("max-age=100", age: 50))
        #expect(!onError("max-age=100", age: 150))
        #expect(onError("max-age=100, stale-if-error=60", age: 150))
        #expect(!onError("max-age=100, stale-if-error=60", age: 161))
        #expect(onError("max-age=100", age: 150, request: "stale-if-error=100"))
        #expect(onError("max-age=100", age: 5_000, optIn: true))
        #expect(!onError("max-age=100, must-revalidate", age: 150, optIn: true))
    }

    // MARK: Variants

    @Test(
        arguments: [
            // Vary, the stored request's headers, the new request's: whether it answers
            ("", [], [], true), ("Accept-Encoding", [("Accept-Encoding", "gzip")], [("accept-encoding", "gzip")], true),
            ("Accept-Encoding", [("Accept-Encoding", "gzip")], [("Accept-Encoding", "br")], false),
            ("Accept-Encoding", [], [], true), ("Accept-Encoding", [("Accept-Encoding", "gzip")], [], false),
            (
                "Accept-Language, Accept", [("Accept", "a/b"), ("Accept-Language", "en")],
                [
                    ("Accept-Language", "en"), ("Accept", "a/b")
                ], true
            ),
            ("Accept", [("Accept", "a/b, c/d")], [("Accept", "a/b"), ("Accept", " c/d")], true),
            ("Accept", [("Accept", "a/b,c/d")], [("Accept", "c/d,a/b")], false),
            ("*", [], [], false), ("Accept, *", [("Accept", "x")], [("Accept", "x")], false)
        ] as [(String, [(String, String)], [(String, String)], Bool)])
    func aVariantAnswersWhenItsVaryingFieldsAgree(
        vary: String, stored: [(String, String)], request: [(String, String)], matches: Bool
    ) {
        let fields = CacheVariant.varyingFields(of: vary.isEmpty ? [] : Self.headers([("Vary", vary)]))
        #expect(
            CacheVariant.matches(
                vary: fields, storedRequestHeaders: Self.headers(stored), requestHeaders: Self.headers(request))
                == matches)
    }

    // MARK: Revalidating and invalidating

    @Test func aStaleResponseIsRevalidatedWithItsValidatorsAndA304UpdatesIt() {
        let stored = Self.headers([
            ("ETag", "\"v1\""), ("Last-Modified", "Fri, 22 Dec 2023 00:00:00 GMT"), ("Cache-Control", "max-age=60"),
            ("Content-Length", "120"), ("Content-Encoding", "gzip"), ("X-Kept", "yes")
        ])
        #expect(
            CacheValidation.conditionalHeaders(for: stored)
                == Self.headers([
                    ("If-None-Match", "\"v1\""), ("If-Modified-Since", "Fri, 22 Dec 2023 00:00:00 GMT")
                ]))
        #expect(CacheValidation.conditionalHeaders(for: Self.headers([("Date", Self.dateText)])).isEmpty)
        let notModified = Self.headers([
            ("cache-control", "max-age=600"), ("Content-Length", "0"), ("Content-Encoding", "identity"),
            ("ETag", "W/\"v1\""), ("Date", Self.dateText)
        ])
        let updated = CacheValidation.headers(updating: stored, with: notModified)
        #expect(updated.value(for: "Cache-Control") == "max-age=600")
        #expect(updated.filter { $0.hasName("Cache-Control") }.count == 1)
        #expect(updated.value(for: "Content-Length") == "120" && updated.value(for: "Content-Encoding") == "gzip")
        #expect(updated.value(for: "X-Kept") == "yes" && updated.value(for: "Date") == Self.dateText)
        #expect(CacheValidation.notModifiedMatches(stored: stored, notModified: notModified))
        #expect(!CacheValidation.notModifiedMatches(stored: stored, notModified: Self.headers([("ETag", "\"v2\"")])))
        #expect(CacheValidation.notModifiedMatches(stored: stored, notModified: []))
    }

    /// A 304 that repeats the stored values leaves the stored fields as they are; one that
    /// changes a value, drops one of two lines of a field, or adds a field replaces them.
    @Test func aNotModifiedThatRepeatsTheStoredValuesChangesNoField() {
        let stored = Self.headers([
            ("ETag", "\"v1\""), ("Cache-Control", "no-cache"), ("Cache-Control", "private"), ("X-Kept", "yes")
        ])
        let repeating = Self.headers([
            ("Cache-Control", "no-cache"), ("etag", "\"v1\""), ("Cache-Control", "private"), ("Content-Length", "0"),
            ("Connection", "keep-alive")
        ])
        #expect(CacheValidation.headers(updating: stored, with: repeating) == stored)
        let changes: [[HTTPHeader]] = [
            Self.headers([("ETag", "\"v2\"")]),
            Self.headers([("Cache-Control", "no-cache")]),
            Self.headers([("Cache-Control", "private"), ("Cache-Control", "no-cache")]),
            Self.headers([("Date", Self.dateText)])
        ]
        for notModified in changes {
            let updated = CacheValidation.headers(updating: stored, with: notModified)
            #expect(updated != stored)
            for field in notModified {
                #expect(
                    updated.filter { $0.hasName(field.name) }.map(\.value)
                        == notModified.filter { $0.hasName(field.name) }.map(\.value))
            }
            #expect(updated.value(for: "X-Kept") == "yes")
        }
        // Refreshed with the same fields: the new times, the parsed fields kept.
        let response = CachedResponse(
            url: "https://a.example/x", status: 200, headers: Self.headers([("Cache-Control", "max-age=60")]),
            body: Data(), requestHeaders: [], requestTime: 100, responseTime: 101)
        let refreshed = response.refreshed(headers: response.headers, requestTime: 200, responseTime: 201)
        #expect(refreshed.control == response.control && refreshed.control.maxAge == 60)
        #expect(refreshed.freshness(at: 230).age == 30 && response.freshness(at: 230).age == 130)
    }

    @Test(
        arguments: [
            (
                "POST", 201, [("Location", "/todos/7")],
                ["https://api.example.com/todos", "https://api.example.com/todos/7"]
            ),
            (
                "PUT", 200, [("Content-Location", "https://api.example.com/todos?all")],
                [
                    "https://api.example.com/todos", "https://api.example.com/todos?all"
                ]
            ),
            ("DELETE", 204, [("Location", "https://other.example.com/todos")], ["https://api.example.com/todos"]),
            ("PATCH", 303, [("Location", "http://api.example.com/todos/1")], ["https://api.example.com/todos"]),
            ("POST", 500, [("Location", "/todos/7")], []), ("GET", 200, [], []), ("OPTIONS", 200, [], [])
        ] as [(String, Int, [(String, String)], [String])])
    func anUnsafeRequestInvalidatesItsURLAndItsOriginsLocations(
        method: String, status: Int, headers: [(String, String)], expected: [String]
    ) {
        let urls = CacheInvalidation.invalidatedURLs(
            method: method, url: URL(string: "https://api.example.com/todos")!, status: status,
            headers: Self.headers(headers))
        #expect(urls.map(\.absoluteString) == expected)
    }
}
