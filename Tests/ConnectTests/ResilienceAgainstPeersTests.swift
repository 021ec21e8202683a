import ConnectFutures
import Foundation
import Testing

@testable import Connect

/// The rules under load against servers nobody here wrote: hypercorn serving
/// `Tests/PythonPeers/fault_app.py`, whose faults the tests switch (an outage of 503s, a first
/// answer that never comes, answers held until released, a payment that fails twice per key),
/// and nginx in front of it, as a gateway whose upstream fails and then goes away. The app
/// counts the requests it received and those whose client left before the answer.
@Suite(
    "Under load, against hypercorn and nginx", .timeLimit(.minutes(3)),
    .enabled(if: HypercornServer.isInstalled || ProcessInfo.processInfo.environment["CI"] != nil))
struct ResilienceAgainstPeersTests {
    /// What the app saw.
    struct Stats: Decodable {
        var requests: [String: Int]
        var left: [String: Int]
        var keys: [String: [String]]
    }

    static func faultApp() async throws -> HypercornServer {
        try await HypercornServer(tls: false, app: "fault_app:app")
    }

    static func stats(_ server: HypercornServer) async throws -> Stats {
        let body = try await Connect().send(Request(url: server.url.appendingPathComponent("stats"))).value.body
        return try JSONDecoder().decode(Stats.self, from: body)
    }

    /// What the app saw once `condition` holds, or after a minute of asking.
    static func stats(_ server: HypercornServer, once condition: (Stats) -> Bool) async throws -> Stats {
        try await eventually({ try await Self.stats(server) }, until: condition)
    }

    static func post(_ path: String, to server: HypercornServer) async throws {
        _ = try await Connect().send(Request(method: .post, url: server.url.appendingPathComponent(path))).value
    }

    /// During an outage, ten requests that a policy would try three times each reach the server
    /// thirty times without a budget, and fifteen with one that allows retries for half the
    /// first attempts: each refused retry fails with the budget's error, naming the 503.
    @Test func theBudgetBoundsRetriesDuringAnOutage() async throws {
        let server = try await Self.faultApp()
        defer { server.shutdown() }
        try await Self.post("outage/on", to: server)
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(20))
        for (path, budget) in [("unbounded", nil), ("budgeted", RetryBudget(share: 0.5, minimumPerSecond: 0))]
            as [(String, RetryBudget?)]
        {
            let connect = Connect(middleware: ConnectMiddleware(retrier: policy, retryBudget: budget))
            var refused = 0
            for _ in 0..<10 {
                let error = await connectError(
                    connect.send(Request(url: server.url.appendingPathComponent("item/\(path)"))))
                if case .transport(let failure)? = error, failure.kind == .retryBudgetExhausted {
                    #expect(failure.message.contains("503"))
                    refused += 1
                } else {
                    #expect(error?.statusCode == 503)
                }
            }
            let seen = try await Self.stats(server).requests["/item/\(path)"]
            #expect(seen == (budget == nil ? 30 : 15), "\(path)")
            #expect(refused == (budget == nil ? 0 : 10), "\(path)")
        }
    }

    /// A first answer that does not come is overtaken by a hedge, whose answer is the
    /// request's; the first attempt's connection is closed, which the server sees as its client
    /// leaving.
    @Test func aHedgeOvertakesAnAnswerThatDoesNotComeAndTheFirstClientLeaves() async throws {
        let server = try await Self.faultApp()
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(hedging: Hedging(delay: .fixed(.milliseconds(50)))))
        let response = try await connect.send(Request(url: server.url.appendingPathComponent("slow-first/a"))).value
        #expect(String(decoding: response.body, as: UTF8.self) == "attempt 2")
        let stats = try await Self.stats(server) { $0.left["/slow-first/a"] == 1 }
        #expect(stats.requests["/slow-first/a"] == 2 && stats.left["/slow-first/a"] == 1)
    }

    /// A payment whose first two attempts fail with 503 is retried with the same key and the
    /// same body each time, and succeeds on the third.
    @Test func aKeyedPaymentIsRetriedWithOneKey() async throws {
        let server = try await Self.faultApp()
        defer { server.shutdown() }
        let connect = Connect(
            middleware: ConnectMiddleware(retrier: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5))))
        var request = Request(
            method: .post, url: server.url.appendingPathComponent("pay"), body: .data(Data(#"{"cents":995}"#.utf8)))
        request.idempotencyKey = IdempotencyKey("order-7")
        let response = try await connect.send(request).value
        #expect(response.statusCode == 201 && response.body == Data("order-7".utf8))
        #expect(try await Self.stats(server).keys["order-7"] == Array(repeating: #"{"cents":995}"#, count: 3))

        // The same POST without a key is not repeated: one attempt, a 400.
        request.idempotencyKey = nil
        #expect(await connectError(connect.send(request))?.statusCode == 400)
        #expect(try await Self.stats(server).requests["/pay"] == 4)
    }

    /// Twenty callers of one held resource cause one request; when it is released each gets
    /// the answer. Callers that all cancel end their shared request, which the server sees as
    /// its client leaving.
    @Test func coalescedCallersShareOneRequest() async throws {
        let server = try await Self.faultApp()
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.coalescesIdenticalRequests = true
        let connect = Connect(configuration: configuration)
        let held = Request(url: server.url.appendingPathComponent("held/c"))
        let callers = (0..<20).map { _ in connect.send(held) }
        #expect(connect.hops.coalescer.waitingCount == 20)
        _ = try await Self.stats(server) { $0.requests["/held/c"] == 1 }
        try await Self.post("release/c", to: server)
        for caller in callers {
            #expect(try await caller.value.body == Data("c".utf8))
        }
        #expect(try await Self.stats(server).requests["/held/c"] == 1)

        let abandoned = (0..<3).map { _ in connect.send(Request(url: server.url.appendingPathComponent("held/d"))) }
        _ = try await Self.stats(server) { $0.requests["/held/d"] == 1 }
        for caller in abandoned { caller.cancel() }
        let stats = try await Self.stats(server) { $0.left["/held/d"] == 1 }
        #expect(stats.requests["/held/d"] == 1 && stats.left["/held/d"] == 1)
    }

    /// nginx in front of hypercorn, as a gateway: the upstream's 503s open the circuit, and the
    /// next request fails fast without reaching nginx. A breaker with no wait before its probe
    /// shows the rest, with no timing to outlast: when the upstream is back, the probe closes the
    /// circuit; when the upstream goes away, nginx's 502s open it again.
    @Test func theBreakerOpensOnAGatewaysFailuresAndAProbeClosesIt() async throws {
        let upstream = try await Self.faultApp()
        var upstreamRunning = true
        defer { if upstreamRunning { upstream.shutdown() } }
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "server",
                locations: "location / { proxy_pass http://127.0.0.1:\(upstream.port); }",
                cleartext: true)
        ])
        defer { nginx.shutdown() }
        let gateway = Request(url: URL(string: "http://127.0.0.1:\(nginx.ports[0])/item/g")!)
        try await Self.post("outage/on", to: upstream)

        // Open for ten minutes: no loaded machine reaches the probe during the test.
        let lasting = Connect(
            middleware: ConnectMiddleware(
                circuitBreaker: CircuitBreaker(failureThreshold: 3, openDuration: .seconds(600))))
        for _ in 0..<3 { #expect(await connectError(lasting.send(gateway))?.statusCode == 503) }
        let refused = await connectError(lasting.send(gateway))
        guard case .transport(let failure)? = refused, failure.kind == .circuitOpen else {
            Issue.record("expected the open circuit's failure, got \(String(describing: refused))")
            return
        }
        #expect(try await Self.stats(upstream).requests["/item/g"] == 3, "refused without reaching the gateway")

        let monitor = CircuitMonitor()
        let probing = Connect(
            middleware: ConnectMiddleware(
                monitors: [monitor], circuitBreaker: CircuitBreaker(failureThreshold: 3, openDuration: .zero)))
        for _ in 0..<3 { #expect(await connectError(probing.send(gateway))?.statusCode == 503) }
        try await Self.post("outage/off", to: upstream)
        #expect(try await probing.send(gateway).value.body == Data("g".utf8), "the probe found the upstream back")

        upstream.shutdown()
        upstreamRunning = false
        // The upstream stops a moment after it is told to: until then it still answers.
        let direct = Connect()
        _ = try await eventually({
            await outcome(direct.send(Request(url: upstream.url.appendingPathComponent("stats"))))
        }) {
            if case .failure = $0 { true } else { false }
        }
        for _ in 0..<3 { #expect(await connectError(probing.send(gateway))?.statusCode == 502) }
        let states = monitor.changes.withLock { $0.map(\.1) }
        #expect(
            states.count == 4 && states[0].hasPrefix("open") && states[1] == "half open" && states[2] == "closed"
                && states[3].hasPrefix("open"), "\(states)")
    }
}
