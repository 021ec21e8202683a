import ConnectFutures
import ConnectTestServer
import Foundation
import Synchronization
import Testing

@testable import Connect

/// The cache in the exchange, against servers: what is answered without the network, what is
/// revalidated, stored, replaced, invalidated, and what stands in for a failure, with a clock the
/// test moves instead of sleeping.
@Suite("HTTP cache against servers", .timeLimit(.minutes(2)))
struct ResponseCacheTests {
    /// Whole seconds since 1970, moved by the test.
    final class TestClock: Sendable {
        private let seconds = Locked(Int(Date().timeIntervalSince1970))
        var now: Int { seconds.withLock { $0 } }
        func advance(by interval: Int) { seconds.withLock { $0 += interval } }
    }

    /// What the monitors saw: each response's cache status.
    final class StatusMonitor: ConnectMonitor {
        private let seen = Locked<[CacheStatus?]>([])
        var statuses: [CacheStatus?] { seen.withLock { $0 } }
        func responseReceived(_ response: Response, for request: Request, attempt: Int) {
            seen.withLock { $0.append(response.cacheStatus) }
        }
    }

    static func client(
        _ clock: TestClock, capacity: Int = 1 << 20, servesStaleOnError: Bool = false,
        middleware: ConnectMiddleware = ConnectMiddleware(), policy: CachePolicy = .useProtocolCachePolicy
    ) -> (Connect, ResponseCache) {
        let cache = ResponseCache(
            store: MemoryCacheStore(capacity: capacity), servesStaleOnError: servesStaleOnError,
            clock: { clock.now })
        var configuration = ConnectConfiguration()
        configuration.cache = cache
        configuration.cachePolicy = policy
        return (Connect(middleware: middleware, configuration: configuration), cache)
    }

    /// Another client of `cache`: its own connections, none open yet.
    static func client(sharing cache: ResponseCache) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.cache = cache
        return Connect(configuration: configuration)
    }

    static func get(
        _ connect: Connect, _ server: TestServer, _ path: String = "/a", headers: [HTTPHeader] = []
    )
        async throws -> Response
    {
        try await connect.send(Request(url: server.baseURL.appendingPathComponent(path), headers: headers)).value
    }

    @Test func aFreshResponseAnswersWithoutTheNetworkAndSaysHowOld() async throws {
        let server = try TestServer { _ in
            .json(
                #"{"userId":1,"id":2,"title":"stored","completed":false}"#, headers: [("Cache-Control", "max-age=60")])
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        let first = try await Self.get(connect, server)
        #expect(first.cacheStatus == .miss)
        clock.advance(by: 10)
        let second = try await Self.get(connect, server)
        #expect(second.cacheStatus == .hit)
        #expect(second.body == first.body && second.statusCode == 200)
        #expect(second.header("Age") == "10")
        #expect(second.url == first.url)
        // Decoding reads a stored body like a fresh one.
        let todo = try await connect.request(TestConnector(server, "/a")).decoded(toType: Todo.self).value
        #expect(todo.title == "stored")
        #expect(server.requests.count == 1)
    }

    @Test func aStaleResponseIsRevalidatedAndA304RefreshesIt() async throws {
        let server = try TestServer { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return TestResponse(
                    status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=60"), ("X-Version", "2")])
            }
            return TestResponse(
                headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=60"), ("X-Version", "1")],
                body: Data("one".utf8))
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        _ = try await Self.get(connect, server)
        clock.advance(by: 61)
        let revalidated = try await Self.get(connect, server)
        #expect(revalidated.cacheStatus == .revalidated)
        #expect(revalidated.statusCode == 200 && revalidated.body == Data("one".utf8))
        #expect(revalidated.header("X-Version") == "2")
        #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")
        // Fresh again from the 304's arrival.
        clock.advance(by: 30)
        let hit = try await Self.get(connect, server)
        #expect(hit.cacheStatus == .hit && hit.header("X-Version") == "2")
        #expect(server.requests.count == 2)
    }

    @Test func aChangedResourceReplacesTheStoredOne() async throws {
        let version = Locked(1)
        let server = try TestServer { request in
            let current = version.withLock { $0 }
            if request.header("If-Modified-Since") != nil, current == 1 { return TestResponse(status: 304) }
            return TestResponse(
                headers: [("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT"), ("Cache-Control", "max-age=5")],
                body: Data("v\(current)".utf8))
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        _ = try await Self.get(connect, server)
        version.withLock { $0 = 2 }
        clock.advance(by: 6)
        let changed = try await Self.get(connect, server)
        #expect(changed.cacheStatus == .miss && changed.body == Data("v2".utf8))
        #expect(server.requests.last?.header("If-Modified-Since") == "Mon, 01 Jan 2024 00:00:00 GMT")
        let hit = try await Self.get(connect, server)
        #expect(hit.cacheStatus == .hit && hit.body == Data("v2".utf8))
    }

    @Test func a304ForAnotherRepresentationFetchesTheWholeResponseAgain() async throws {
        let version = Locked(1)
        let server = try TestServer { request in
            let current = version.withLock { $0 }
            if request.header("If-None-Match") != nil {
                return TestResponse(status: 304, headers: [("ETag", "\"v\(current)\"")])
            }
            return TestResponse(
                headers: [("ETag", "\"v\(current)\""), ("Cache-Control", "max-age=1")], body: Data("v\(current)".utf8))
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        _ = try await Self.get(connect, server)
        version.withLock { $0 = 2 }
        clock.advance(by: 5)
        let refetched = try await Self.get(connect, server)
        #expect(refetched.cacheStatus == .miss && refetched.body == Data("v2".utf8))
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"v1\"", nil])
        #expect(try await Self.get(connect, server).cacheStatus == .hit)
    }

    @Test func eachVariantIsStoredByTheFieldsVaryNames() async throws {
        let server = try TestServer { request in
            .text(
                request.header("Accept-Language") ?? "none",
                headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        }
        defer { server.shutdown() }
        let (connect, _) = Self.client(TestClock())
        for language in ["en", "de", "en", "de"] {
            let response = try await Self.get(
                connect, server, headers: [HTTPHeader(name: "Accept-Language", value: language)])
            #expect(response.body == Data(language.utf8))
        }
        #expect(server.requests.count == 2)
        // Vary: * never matches a later request.
        let star = try TestServer { _ in .text("x", headers: [("Cache-Control", "max-age=60"), ("Vary", "*")]) }
        defer { star.shutdown() }
        _ = try await Self.get(connect, star)
        #expect(try await Self.get(connect, star).cacheStatus == .miss)
        #expect(star.requests.count == 2)
    }

    @Test func whatMayNotBeStoredGoesToTheServerEveryTime() async throws {
        let server = try TestServer { request in
            switch request.path {
            case "/no-store": .text("x", headers: [("Cache-Control", "no-store, max-age=60")])
            case "/public": .text("x", headers: [("Cache-Control", "public, max-age=60")])
            default: .text("x", headers: [("Cache-Control", "max-age=60")])
            }
        }
        defer { server.shutdown() }
        let (connect, _) = Self.client(TestClock())
        let authorization = [HTTPHeader(name: "Authorization", value: "Bearer secret")]
        for _ in 0..<2 {
            #expect(try await Self.get(connect, server, "/no-store").cacheStatus == .miss)
            #expect(try await Self.get(connect, server, "/private", headers: authorization).cacheStatus == .miss)
        }
        #expect(server.requests.count == 4)
        _ = try await Self.get(connect, server, "/public", headers: authorization)
        #expect(try await Self.get(connect, server, "/public", headers: authorization).cacheStatus == .hit)
    }

    @Test func anUnsafeRequestDropsWhatItChanged() async throws {
        let server = try TestServer { request in
            request.method == "POST"
                ? TestResponse(status: 201, headers: [("Location", "/b")])
                : .text(request.path, headers: [("Cache-Control", "max-age=60")])
        }
        defer { server.shutdown() }
        let (connect, _) = Self.client(TestClock())
        _ = try await Self.get(connect, server, "/a")
        _ = try await Self.get(connect, server, "/b")
        let posted = try await connect.send(
            Request(method: .post, url: server.baseURL.appendingPathComponent("a"), body: .data(Data("x".utf8)))
        ).value
        #expect(posted.cacheStatus == nil)
        #expect(try await Self.get(connect, server, "/a").cacheStatus == .miss)
        #expect(try await Self.get(connect, server, "/b").cacheStatus == .miss)
        #expect(server.requests.count == 5)
    }

    @Test func thePoliciesOfURLRequest() async throws {
        let server = try TestServer { request in
            request.header("If-None-Match") == "\"v1\""
                ? TestResponse(status: 304, headers: [("ETag", "\"v1\"")])
                : .text("one", headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        func send(_ policy: CachePolicy) async throws -> Response {
            var request = Request(url: server.baseURL.appendingPathComponent("a"))
            request.cachePolicy = policy
            return try await connect.send(request).value
        }
        // Never loads: a typed failure, and nothing sent.
        let failure = await #expect(throws: ConnectError.self) { try await send(.returnCacheDataDontLoad) }
        guard case .transport(let transport)? = failure else { throw failure ?? ConnectError.cancelled }
        #expect(transport.kind == .notCached && !transport.requestSent)
        #expect(server.requests.isEmpty)

        #expect(try await send(.returnCacheDataElseLoad).cacheStatus == .miss)
        clock.advance(by: 3600)
        #expect(try await send(.returnCacheDataElseLoad).cacheStatus == .stale)
        #expect(try await send(.returnCacheDataDontLoad).cacheStatus == .stale)
        #expect(server.requests.count == 1)
        #expect(try await send(.reloadRevalidatingCacheData).cacheStatus == .revalidated)
        #expect(try await send(.reloadRevalidatingCacheData).cacheStatus == .revalidated)
        #expect(try await send(.reloadIgnoringLocalCacheData).cacheStatus == .miss)
        #expect(server.requests.count == 4)
        #expect(server.requests.last?.header("If-None-Match") == nil)

        // A connector's policy, and the configuration's.
        var connector = TestConnector(server, "/a")
        connector.cachePolicy = .reloadIgnoringLocalCacheData
        _ = try await connect.request(connector).value
        #expect(server.requests.count == 5)
        let (offline, _) = Self.client(clock, policy: .returnCacheDataDontLoad)
        await #expect(throws: ConnectError.self) { try await offline.request(TestConnector(server, "/a")).value }
        #expect(server.requests.count == 5)
        // only-if-cached: a stored response that is fresh enough, or a typed failure.
        let onlyIfCached = [HTTPHeader(name: "Cache-Control", value: "only-if-cached")]
        #expect(try await Self.get(connect, server, headers: onlyIfCached).cacheStatus == .hit)
        await #expect(throws: ConnectError.self) {
            try await Self.get(connect, server, "/other", headers: onlyIfCached)
        }
        #expect(server.requests.count == 5)
    }

    @Test func aStoredResponseStandsInForAFailureWhereItMay() async throws {
        let failing = Locked(false)
        let server = try TestServer { request in
            if failing.withLock({ $0 }) { return TestResponse(status: 503) }
            return request.path == "/allowed"
                ? .text("kept", headers: [("Cache-Control", "max-age=1, stale-if-error=600")])
                : .text("kept", headers: [("Cache-Control", "max-age=1")])
        }
        let clock = TestClock()
        let (connect, cache) = Self.client(clock)
        _ = try await Self.get(connect, server, "/allowed")
        _ = try await Self.get(connect, server, "/not-allowed")
        failing.withLock { $0 = true }
        clock.advance(by: 60)
        let standIn = try await Self.get(connect, server, "/allowed")
        #expect(standIn.cacheStatus == .stale && standIn.body == Data("kept".utf8) && standIn.statusCode == 200)
        // Without stale-if-error the 503 is the answer, and fails as one.
        await #expect(throws: ConnectError.self) { try await Self.get(connect, server, "/not-allowed") }
        // The server gone (and a client of the same cache with no connection open to it): within
        // stale-if-error the stored response answers.
        server.shutdown()
        let afterwards = Self.client(sharing: cache)
        #expect(try await Self.get(afterwards, server, "/allowed").cacheStatus == .stale)
        await #expect(throws: ConnectError.self) { try await Self.get(afterwards, server, "/not-allowed") }
        clock.advance(by: 600)
        await #expect(throws: ConnectError.self) { try await Self.get(afterwards, server, "/allowed") }
    }

    @Test func anAppMayOptInToStaleAnswersWhenOffline() async throws {
        let server = try TestServer { _ in .text("kept", headers: [("Cache-Control", "max-age=1")]) }
        let clock = TestClock()
        let (connect, cache) = Self.client(clock, servesStaleOnError: true)
        _ = try await Self.get(connect, server)
        server.shutdown()
        clock.advance(by: 86_400)
        let offline = try await Self.get(Self.client(sharing: cache), server)
        #expect(offline.cacheStatus == .stale && offline.body == Data("kept".utf8))
        #expect(offline.header("Age") == "86400")
    }

    @Test func staleWhileRevalidateAnswersAtOnceAndRefreshesBehind() async throws {
        let version = Locked(1)
        let server = try TestServer { _ in
            .text(
                "v\(version.withLock { $0 })", headers: [("Cache-Control", "max-age=1, stale-while-revalidate=60")])
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        _ = try await Self.get(connect, server)
        version.withLock { $0 = 2 }
        clock.advance(by: 5)
        let stale = try await Self.get(connect, server)
        #expect(stale.cacheStatus == .stale && stale.body == Data("v1".utf8))
        #expect(await eventually { server.requests.count == 2 })
        // Stored once its response has been handled. Looked for in the cache alone until then: a
        // request that may use the network would be answered stale again, and revalidate again.
        let deadline = ContinuousClock.now + .seconds(300)
        var lookup = Request(url: server.baseURL.appendingPathComponent("/a"))
        lookup.cachePolicy = .returnCacheDataDontLoad
        while ContinuousClock.now < deadline, try await connect.send(lookup).value.body != Data("v2".utf8) {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Then the next request gets it from the cache.
        let refreshed = try await Self.get(connect, server)
        #expect(refreshed.cacheStatus == .hit && refreshed.body == Data("v2".utf8))
        #expect(server.requests.count == 2)
    }

    /// A stale response answers every request while its revalidation is out, and is revalidated
    /// once: the requests in between send nothing. A revalidation that fails, or one that
    /// refreshed the response, ends, and the next stale answer starts another.
    @Test func oneBackgroundRevalidationAtATimeForAStaleResponse() async throws {
        let held = TestGate()
        let revalidations = Locked(0)
        let server = try TestServer { request in
            let headers = [("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("ETag", "\"v\"")]
            guard request.header("If-None-Match") != nil else { return .text("v1", headers: headers) }
            switch revalidations.withLock({
                $0 += 1
                return $0
            }) {
            case 1:
                return TestResponse(
                    status: 200, headers: headers, body: Data("v2".utf8), behavior: .holdBody(until: held))
            case 2: return TestResponse(status: 503, headers: [("Cache-Control", "no-store")])
            default: return TestResponse(status: 304, headers: headers)
            }
        }
        defer { server.shutdown() }
        let clock = TestClock()
        let (connect, cache) = Self.client(clock)
        _ = try await Self.get(connect, server)
        clock.advance(by: 5)
        // The first revalidation is held: every request meanwhile is answered stale, none sent.
        for _ in 0..<6 {
            let stale = try await Self.get(connect, server)
            #expect(stale.cacheStatus == .stale && stale.body == Data("v1".utf8))
        }
        #expect(await eventually { server.requests.count == 2 })
        #expect(cache.backgroundRevalidations.count == 1)
        held.open()
        #expect(await eventually { cache.backgroundRevalidations.count == 0 })
        #expect(server.requests.count == 2)
        // Refreshed (v2, stored at the clock's time), then stale again: the second revalidation
        // goes out, fails (a 503), and ends.
        var lookup = Request(url: server.baseURL.appendingPathComponent("/a"))
        lookup.cachePolicy = .returnCacheDataDontLoad
        #expect(try await connect.send(lookup).value.body == Data("v2".utf8))
        clock.advance(by: 5)
        #expect(try await Self.get(connect, server).cacheStatus == .stale)
        #expect(await eventually { revalidations.withLock { $0 } == 2 && cache.backgroundRevalidations.count == 0 })
        // So the next stale answer revalidates again: a 304, which makes the response fresh.
        #expect(try await Self.get(connect, server).body == Data("v2".utf8))
        #expect(await eventually { revalidations.withLock { $0 } == 3 && cache.backgroundRevalidations.count == 0 })
        #expect(try await Self.get(connect, server).cacheStatus == .hit)
        #expect(server.requests.count == 4)
    }

    @Test func aStoredPermanentRedirectIsFollowed() async throws {
        let server = try TestServer { request in
            request.path == "/old"
                ? TestResponse(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=3600")])
                : .text("new", headers: [("Cache-Control", "max-age=60")])
        }
        defer { server.shutdown() }
        let (connect, _) = Self.client(TestClock())
        let first = try await Self.get(connect, server, "/old")
        let second = try await Self.get(connect, server, "/old")
        #expect(first.body == Data("new".utf8) && second.body == Data("new".utf8))
        #expect(second.cacheStatus == .hit && second.url.path == "/new")
        #expect(second.metrics.redirectCount == 1)
        #expect(server.requests.count == 2)
    }

    @Test func middlewareTheErrorHandlerAndTheLogSeeWhereAResponseCameFrom() async throws {
        let server = try TestServer { request in
            request.path == "/gone"
                ? .json(#"{"message":"gone for good"}"#, status: 404, headers: [("Cache-Control", "max-age=60")])
                : .text("ok", headers: [("Cache-Control", "max-age=60")])
        }
        defer { server.shutdown() }
        let monitor = StatusMonitor()
        let (connect, _) = Self.client(TestClock(), middleware: ConnectMiddleware(monitors: [monitor]))
        for _ in 0..<2 { _ = try await connect.request(TestConnector(server, "/a")).value }
        #expect(monitor.statuses == [.miss, .hit])
        for _ in 0..<2 {
            let error = await connectError(connect.request(TestConnector(server, "/gone")))
            #expect(error?.statusCode == 404)
            if case .http(let failure)? = error { #expect(failure.message == "gone for good") }
        }
        #expect(server.requests.count == 2)
        let hit = try await Self.get(connect, server)
        #expect(
            DebugLog.describe(hit, elapsed: .zero, redacting: nil).hasPrefix(
                "HTTP/1.1 200 OK in 0.0 ms, 2 bytes (cache: hit)"))
    }

    @Test func rangesHeadDownloadsAndStreamsGoPastTheCache() async throws {
        let server = try TestServer { _ in .text("whole", headers: [("Cache-Control", "max-age=60")]) }
        defer { server.shutdown() }
        let (connect, _) = Self.client(TestClock())
        let url = server.baseURL.appendingPathComponent("a")
        _ = try await connect.send(Request(url: url)).value
        let head = try await connect.send(Request(method: .head, url: url)).value
        #expect(head.cacheStatus == nil)
        let ranged = try await connect.send(Request(url: url, headers: [HTTPHeader(name: "Range", value: "bytes=0-1")]))
            .value
        #expect(ranged.cacheStatus == nil)
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.txt")
        _ = try await connect.download(TestConnector(server, "/a"), to: file).value
        #expect(try Data(contentsOf: file) == Data("whole".utf8))
        var streamed = Data()
        for try await chunk in connect.stream(TestConnector(server, "/a")) { streamed += chunk }
        #expect(streamed == Data("whole".utf8))
        #expect(server.requests.count == 5)
        // And the GET the cache answers is still stored.
        #expect(try await connect.send(Request(url: url)).value.cacheStatus == .hit)
    }

    @Test func theStoreStaysWithinItsCapacity() async throws {
        let server = try TestServer { request in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: Data(repeating: 1, count: 10_000))
        }
        defer { server.shutdown() }
        let (connect, cache) = Self.client(TestClock(), capacity: 50_000)
        for index in 0..<20 { _ = try await Self.get(connect, server, "/\(index)") }
        #expect(cache.byteCount <= 50_000 && cache.byteCount > 30_000)
        // The most recent are kept, the oldest dropped.
        #expect(try await Self.get(connect, server, "/19").cacheStatus == .hit)
        #expect(try await Self.get(connect, server, "/0").cacheStatus == .miss)
        cache.removeAll()
        #expect(cache.byteCount == 0)
        #expect(try await Self.get(connect, server, "/19").cacheStatus == .miss)
        cache.removeResponses(for: server.baseURL.appendingPathComponent("19"))
        #expect(try await Self.get(connect, server, "/19").cacheStatus == .miss)
    }

    /// nginx's own validators: `ETag` and `Last-Modified` on a static file, `expires` for a
    /// lifetime.
    @Test func nginxsValidatorsAndExpires() async throws {
        let root = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("file.txt")
        try Data("static".utf8).write(to: file)
        // Modified a day ahead of the responses' Date: no heuristic lifetime, however long the
        // run takes between writing the file and nginx's answer (a tenth of that time would be
        // one, which a stalled sanitizer run stretches past the second request).
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(86_400)], ofItemAtPath: file.path)
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "localhost",
                locations:
                    "location /files/ { alias \(root.path)/; } location /lasting/ { alias \(root.path)/; expires 1h; }",
                cleartext: true)
        ])
        defer { nginx.shutdown() }
        let clock = TestClock()
        let (connect, _) = Self.client(clock)
        // No lifetime, and a Last-Modified after the Date: no heuristic freshness, so the second
        // request revalidates, and nginx answers its If-None-Match with 304.
        let first = try await connect.send(Request(url: nginx.url(0, "/files/file.txt"))).value
        #expect(first.cacheStatus == .miss && first.header("ETag") != nil)
        clock.advance(by: 1)
        let second = try await connect.send(Request(url: nginx.url(0, "/files/file.txt"))).value
        #expect(second.cacheStatus == .revalidated && second.body == Data("static".utf8))
        let lasting = try await connect.send(Request(url: nginx.url(0, "/lasting/file.txt"))).value
        #expect(lasting.cacheStatus == .miss && lasting.header("Cache-Control") == "max-age=3600")
        clock.advance(by: 1800)
        #expect(try await connect.send(Request(url: nginx.url(0, "/lasting/file.txt"))).value.cacheStatus == .hit)
        let log = await nginx.accessLog(atLeast: 3)
        #expect(log.count == 3)
        #expect(log.filter { $0.contains(" 304 ") }.count == 1)
    }
}
