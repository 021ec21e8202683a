import ConnectFutures
import ConnectTestServer
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import Connect

/// Coalescing identical requests in flight: which requests share and which stay apart, a
/// flight's callers joining and leaving, and against a real server, a hundred callers of one
/// resource causing one request, each caller cancelling alone, a failure reaching every caller,
/// a caller's own shorter timeout, the cache storing the one answer, the middleware path, and a
/// span for each caller.
@Suite("Coalescing")
struct CoalescingTests {
    static let url = URL(string: "http://127.0.0.1:9/a?b=1")!

    struct KeyCase: Sendable, CustomStringConvertible {
        let name: String
        let other: Request
        var options: TransferOptions? = nil
        /// `nil`: the other request does not coalesce at all.
        let shares: Bool?
        var description: String { name }
    }

    static let base = Request(url: url, headers: [HTTPHeader(name: "Accept", value: "application/json")])

    static func changed(_ change: (inout Request) -> Void) -> Request {
        var request = base
        change(&request)
        return request
    }

    @Test(arguments: [
        KeyCase(name: "the same request", other: base, shares: true),
        KeyCase(
            name: "another timeout: each caller keeps its own", other: changed { $0.timeout = .seconds(1) },
            shares: true),
        KeyCase(name: "HEAD", other: changed { $0.method = .head }, shares: false),
        KeyCase(
            name: "another query", other: changed { $0.url = URL(string: "http://127.0.0.1:9/a?b=2")! }, shares: false),
        KeyCase(
            name: "another header value",
            other: changed { $0.headers = [HTTPHeader(name: "Accept", value: "text/html")] },
            shares: false),
        KeyCase(
            name: "a header more (an Authorization)",
            other: changed { $0.headers.append(HTTPHeader(name: "Authorization", value: "Bearer b")) }, shares: false),
        KeyCase(
            name: "the same headers in another order",
            other: {
                var one = base
                one.headers.append(HTTPHeader(name: "X-A", value: "1"))
                one.headers.insert(HTTPHeader(name: "X-A", value: "1"), at: 0)
                one.headers.removeLast()
                return one
            }(), shares: false),
        KeyCase(
            name: "other credentials", other: changed { $0.credentials = Credentials(username: "u", password: "p") },
            shares: false),
        KeyCase(name: "another HTTP version", other: changed { $0.httpVersion = .http1Only }, shares: false),
        KeyCase(name: "another socket", other: changed { $0.unixSocketPath = "/tmp/s" }, shares: false),
        KeyCase(
            name: "another cache policy", other: changed { $0.cachePolicy = .reloadIgnoringLocalCacheData },
            shares: false),
        KeyCase(name: "may not be repeated", other: changed { $0.allowsRetry = false }, shares: false),
        KeyCase(name: "a POST", other: changed { $0.method = .post }, shares: nil),
        KeyCase(name: "a PUT", other: changed { $0.method = .put }, shares: nil),
        KeyCase(name: "a GET with a body", other: changed { $0.body = .data(Data("x".utf8)) }, shares: nil),
        KeyCase(
            name: "a transfer with options (a rate limit)", other: base,
            options: TransferOptions.ifAny(maximumReceiveRate: 1_000), shares: nil)
    ])
    func whichRequestsShare(_ row: KeyCase) throws {
        let key = try #require(CoalescingKey(Self.base, options: nil))
        guard let shares = row.shares else {
            #expect(CoalescingKey(row.other, options: row.options) == nil)
            return
        }
        let other = try #require(CoalescingKey(row.other, options: row.options))
        #expect((key == other) == shares)
    }

    enum FlightEvent: Sendable {
        case join(String)
        case leave(String)
        case land
    }

    struct FlightCase: Sendable, CustomStringConvertible {
        let name: String
        let events: [FlightEvent]
        /// What each event gave: a join its id or "closed", a leave its departure, a landing the
        /// callers handed the answer.
        let outcomes: [String]
        var description: String { name }
    }

    @Test(arguments: [
        FlightCase(
            name: "three join, the answer reaches all", events: [.join("a"), .join("b"), .join("c"), .land],
            outcomes: ["joined", "joined", "joined", "a b c"]),
        FlightCase(
            name: "one leaves, the others wait and get it",
            events: [.join("a"), .join("b"), .leave("a"), .land], outcomes: ["joined", "joined", "othersWait", "b"]),
        FlightCase(
            name: "the last to leave cancels, and the flight takes no one after",
            events: [.join("a"), .join("b"), .leave("b"), .leave("a"), .join("c"), .land],
            outcomes: ["joined", "joined", "othersWait", "cancelTransfer", "closed", ""]),
        FlightCase(
            name: "after the answer: no one joins, a leave is no one's",
            events: [.join("a"), .land, .join("b"), .leave("a")], outcomes: ["joined", "a", "closed", "notWaiting"]),
        FlightCase(
            name: "leaving twice counts once", events: [.join("a"), .join("b"), .leave("a"), .leave("a"), .land],
            outcomes: ["joined", "joined", "othersWait", "notWaiting", "b"])
    ])
    func aFlightsCallers(_ row: FlightCase) {
        var flight = CoalescedFlight<String>()
        var ids: [String: Int] = [:]
        var outcomes: [String] = []
        for event in row.events {
            switch event {
            case .join(let name):
                if let id = flight.join(name) {
                    ids[name] = id
                    outcomes.append("joined")
                } else {
                    outcomes.append("closed")
                }
            case .leave(let name):
                outcomes.append("\(flight.leave(ids[name] ?? -1))")
            case .land:
                outcomes.append(flight.land().joined(separator: " "))
            }
        }
        #expect(outcomes == row.outcomes)
        #expect(!flight.isOpen && flight.waiting == 0)
    }

    static func coalescing(_ configure: (inout ConnectConfiguration) -> Void = { _ in }) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.coalescesIdenticalRequests = true
        configure(&configuration)
        return Connect(configuration: configuration)
    }

    /// A hundred callers of one resource while its answer is held: one request reaches the
    /// server, every caller gets the whole body, and the flight is gone after.
    @Test func aHundredCallersCauseOneRequest() async throws {
        let gate = TestGate()
        let body = cyclicBytes(100_000)
        let server = try TestServer { _ in TestResponse(body: body, behavior: .holdBody(until: gate)) }
        defer { server.shutdown() }
        let connect = Self.coalescing()
        let futures = (0..<100).map { _ in connect.request(TestConnector(server, "/resource")) }
        #expect(connect.hops.coalescer.flightCount == 1 && connect.hops.coalescer.waitingCount == 100)
        #expect(await eventually { server.requests.count == 1 })
        gate.open()
        for future in futures {
            #expect(try await future.value == body)
        }
        #expect(server.requests.count == 1 && connect.hops.coalescer.flightCount == 0)
        // The next request, after the answer, goes out again: coalescing shares flights, it
        // stores nothing.
        #expect(try await connect.request(TestConnector(server, "/resource")).value == body)
        #expect(server.requests.count == 2)
    }

    /// Requests that differ in a header, or that opt out, each go out; a connector opts in where
    /// the client does not coalesce.
    @Test func whatDiffersOrOptsOutGoesOutOnItsOwn() async throws {
        let gate = TestGate()
        let server = try TestServer { _ in TestResponse(body: Data("x".utf8), behavior: .holdBody(until: gate)) }
        defer { server.shutdown() }
        let connect = Self.coalescing()
        var optedOut = TestConnector(server, "/r")
        optedOut.coalescesIdenticalRequests = false
        let futures = [
            connect.request(TestConnector(server, "/r")),
            connect.request(TestConnector(server, "/r")),
            connect.request(
                TestConnector(server, "/r", headers: [HTTPHeader(name: "Authorization", value: "Bearer b")])),
            connect.request(optedOut)
        ]
        let plain = Connect()
        var optedIn = TestConnector(server, "/r")
        optedIn.coalescesIdenticalRequests = true
        let optedInFutures = [
            plain.request(optedIn), plain.request(optedIn), plain.request(TestConnector(server, "/r"))
        ]
        #expect(await eventually { server.requests.count == 5 }, "\(server.requests.count)")
        gate.open()
        for future in futures + optedInFutures { _ = try await future.value }
        #expect(server.requests.count == 5)
    }

    /// A caller's own future, cancelled, fails with Connect's cancellation: the future a request
    /// returns cancels this one first and may pass its error on, whichever completes it first.
    @Test func aCallerThatCancelsFailsAsACancelledRequest() throws {
        let coalescer = RequestCoalescer(defaultTimeout: .seconds(60))
        let key = try #require(CoalescingKey(Self.base, options: nil))
        let transfer = Promise<Response>()
        let (caller, joined) = coalescer.response(to: Self.base, key: key) { transfer.future }
        #expect(!joined)
        caller.cancel()
        #expect(throws: ConnectError.cancelled) { try caller.result?.get() }
        #expect(transfer.isCancelled, "the only caller left, so the transfer ends")
    }

    /// Each caller cancels alone: the others still get the answer. When every caller has left,
    /// the transfer is cancelled (its connection closes), and the next request starts afresh.
    @Test func eachCallerCancelsAloneAndTheLastEndsTheTransfer() async throws {
        let gate = TestGate()
        let server = try TestServer { _ in TestResponse(body: Data("shared".utf8), behavior: .holdBody(until: gate)) }
        defer { server.shutdown() }
        let connect = Self.coalescing()
        let first = connect.request(TestConnector(server, "/c"))
        let second = connect.request(TestConnector(server, "/c"))
        let third = connect.request(TestConnector(server, "/c"))
        #expect(await eventually { server.requests.count == 1 })
        first.cancel()
        third.cancel()
        await #expect(throws: ConnectError.cancelled) { try await first.value }
        await #expect(throws: ConnectError.cancelled) { try await third.value }
        gate.open()
        #expect(try await second.value == Data("shared".utf8), "the first caller's leaving ended nothing")

        let held = TestGate()
        let stalled = try TestServer { _ in TestResponse(body: Data("late".utf8), behavior: .holdBody(until: held)) }
        defer { stalled.shutdown() }
        let callers = (0..<3).map { _ in connect.request(TestConnector(stalled, "/s")) }
        #expect(await eventually { stalled.openConnectionCount == 1 })
        for caller in callers { caller.cancel() }
        #expect(
            await eventually { stalled.openConnectionCount == 0 }, "the last caller's leaving cancelled the transfer")
        #expect(connect.hops.coalescer.flightCount == 0)
        held.open()
        #expect(try await connect.request(TestConnector(stalled, "/s")).value == Data("late".utf8))
        #expect(stalled.requests.count == 2)
    }

    /// A failure reaches every caller, each through its own checks: a 503 fails each as an HTTP
    /// failure, and a connection cut short fails each as truncated.
    @Test func aFailureReachesEveryCaller() async throws {
        let gate = TestGate()
        let server = try TestServer { request in
            request.path == "/cut"
                ? TestResponse(body: Data(repeating: 1, count: 10_000), behavior: .cutBody(when: gate))
                : TestResponse(status: 503, body: Data("down".utf8), behavior: .holdBody(until: gate))
        }
        defer { server.shutdown() }
        let connect = Self.coalescing()
        let unavailable = (0..<10).map { _ in connect.request(TestConnector(server, "/down")) }
        let cut = (0..<10).map { _ in connect.request(TestConnector(server, "/cut")) }
        #expect(connect.hops.coalescer.waitingCount == 20)
        #expect(await eventually { server.requests.count == 2 })
        gate.open()
        for future in unavailable {
            await #expect {
                try await future.value
            } throws: { error in
                guard case .http(let failure)? = error as? ConnectError else { return false }
                return failure.statusCode == 503
            }
        }
        for future in cut {
            await #expect {
                try await future.value
            } throws: { error in
                guard case .transport(let failure)? = error as? ConnectError else { return false }
                return failure.kind == .truncatedResponse
            }
        }
        #expect(server.requests.count == 2)
    }

    /// A caller with a shorter timeout than the request it shares fails at its own deadline;
    /// the others still get the answer.
    @Test func aCallerKeepsItsOwnTimeout() async throws {
        let gate = TestGate()
        let server = try TestServer { _ in TestResponse(body: Data("slow".utf8), behavior: .holdBody(until: gate)) }
        defer { server.shutdown() }
        let connect = Self.coalescing()
        let patient = connect.request(TestConnector(server, "/t"))
        #expect(await eventually { server.requests.count == 1 })
        let hasty = connect.request(TestConnector(server, "/t", timeout: .milliseconds(100)))
        await #expect {
            try await hasty.value
        } throws: { error in
            guard case .timedOut(let message)? = error as? ConnectError else { return false }
            return message.contains("identical request")
        }
        gate.open()
        #expect(try await patient.value == Data("slow".utf8))
        #expect(server.requests.count == 1)
    }

    /// With a cache, the callers' one request is stored once, and the next caller is answered
    /// from the cache: coalescing and the cache agree.
    @Test func theCacheStoresTheOneAnswer() async throws {
        let gate = TestGate()
        let server = try TestServer { _ in
            TestResponse(
                headers: [("Cache-Control", "max-age=600")], body: Data("cached".utf8), behavior: .holdBody(until: gate)
            )
        }
        defer { server.shutdown() }
        let connect = Self.coalescing { $0.cache = ResponseCache(memoryCapacity: 1 << 20) }
        let futures = (0..<20).map { _ in connect.response(TestConnector(server, "/k")) }
        #expect(await eventually { server.requests.count == 1 })
        gate.open()
        for future in futures {
            let response = try await future.value
            #expect(response.body == Data("cached".utf8) && response.cacheStatus == .miss)
        }
        let again = try await connect.response(TestConnector(server, "/k")).value
        #expect(again.cacheStatus == .hit && again.body == Data("cached".utf8))
        #expect(server.requests.count == 1)
    }

    /// Through the middleware (adapters, retries), awaited from many tasks: the attempts still
    /// share one request, and an adapter's header is part of what they share.
    @Test func theMiddlewarePathShares() async throws {
        let gate = TestGate()
        let server = try TestServer { _ in TestResponse(body: Data("m".utf8), behavior: .holdBody(until: gate)) }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.coalescesIdenticalRequests = true
        let connect = Connect(
            middleware: ConnectMiddleware(
                adapters: [HeaderAdapter(header: HTTPHeader(name: "X-Adapted", value: "yes"))], retrier: RetryPolicy()),
            configuration: configuration)
        let futures = (0..<20).map { _ in connect.request(TestConnector(server, "/m")) }
        // Every attempt runs in a task of its own: the answer waits until all have joined.
        #expect(await eventually { connect.hops.coalescer.waitingCount == 20 && server.requests.count == 1 })
        #expect(connect.hops.coalescer.flightCount == 1)
        gate.open()
        for future in futures { #expect(try await future.value == Data("m".utf8)) }
        #expect(server.requests.count == 1 && server.requests[0].header("X-Adapted") == "yes")
    }

    /// Each caller is a span: the one that went out, and the others marked as sharing it, which
    /// sent nothing of their own.
    @Test func eachCallerIsASpan() async throws {
        let gate = TestGate()
        let server = try TestServer { _ in TestResponse(body: Data("t".utf8), behavior: .holdBody(until: gate)) }
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        let connect = Self.coalescing { $0.tracer = tracer }
        let futures = (0..<3).map { _ in connect.request(TestConnector(server, "/t")) }
        #expect(await eventually { server.requests.count == 1 })
        gate.open()
        for future in futures { _ = try await future.value }
        #expect(await eventually { tracer.finishedSpans.count == 3 })
        let coalesced = tracer.finishedSpans.filter { $0.attributes["connect.coalesced"]?.toSpanAttribute() == true }
        #expect(coalesced.count == 2)
        #expect(server.requests.count == 1)
        let onTheWire = server.requests.compactMap { $0.header(InMemoryTracer.spanIDKey) }
        let sent = tracer.finishedSpans.filter { $0.attributes["connect.coalesced"] == nil }.map(\.spanContext.spanID)
        #expect(onTheWire == sent)
    }
}
