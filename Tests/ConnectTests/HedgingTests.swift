import ConnectFutures
import ConnectTestServer
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import Connect

/// Hedged requests: which requests may be hedged, the delay from measured latencies, and against
/// a real server, a stalled attempt overtaken by its hedge and cancelled at once (its connection
/// closed), hedges paid from the retry budget, a keyed POST's hedges carrying its key, failures
/// waiting for the other attempt, and a caller's cancellation ending every attempt.
@Suite("Hedging")
struct HedgingTests {
    struct AppliesCase: Sendable, CustomStringConvertible {
        let name: String
        let request: Request
        var options: TransferOptions? = nil
        let expected: Bool
        var description: String { name }
    }

    static let url = URL(string: "http://127.0.0.1:9/")!

    static func keyed(_ method: HTTPMethod, allowsRetry: Bool? = nil) -> Request {
        var request = Request(method: method, url: url, body: .data(Data("{}".utf8)), allowsRetry: allowsRetry)
        request.idempotencyKey = IdempotencyKey("k-1")
        return request
    }

    @Test(arguments: [
        AppliesCase(name: "GET", request: Request(url: url), expected: true),
        AppliesCase(name: "HEAD", request: Request(method: .head, url: url), expected: true),
        AppliesCase(name: "PUT: idempotent, but not hedged", request: Request(method: .put, url: url), expected: false),
        AppliesCase(
            name: "POST", request: Request(method: .post, url: url, body: .data(Data("{}".utf8))), expected: false),
        AppliesCase(name: "POST with a key", request: keyed(.post), expected: true),
        AppliesCase(name: "PATCH with a key", request: keyed(.patch), expected: true),
        AppliesCase(
            name: "POST with a key that forbids repeating", request: keyed(.post, allowsRetry: false), expected: false),
        AppliesCase(
            name: "GET that forbids repeating", request: Request(url: url, allowsRetry: false), expected: false),
        AppliesCase(
            name: "a one-time stream body",
            request: {
                var request = keyed(.post)
                request.body = .stream(AsyncStream<Data> { $0.finish() }, count: 0)
                return request
            }(), expected: false),
        AppliesCase(
            name: "a transfer with options of its own (here a rate limit)", request: Request(url: url),
            options: TransferOptions.ifAny(maximumReceiveRate: 1_000), expected: false)
    ])
    func whichRequestsAreHedged(_ row: AppliesCase) {
        #expect(Hedging().applies(to: row.request, options: row.options) == row.expected)
        #expect(
            !Hedging(maximumAttempts: 1).applies(to: row.request, options: row.options), "one attempt hedges nothing")
    }

    @Test func thePercentileDelayFollowsMeasuredLatencies() {
        let ledger = HedgingLedger(
            hedging: Hedging(delay: .percentile(0.95, atLeast: .milliseconds(5), untilMeasured: .milliseconds(70))))
        let a = URL(string: "http://127.0.0.1:8001/")!
        let b = URL(string: "http://127.0.0.1:8002/")!
        for milliseconds in 1...19 { ledger.record(.milliseconds(milliseconds), for: a) }
        #expect(ledger.delay(for: a) == .milliseconds(70), "until twenty answers are known")
        for milliseconds in 20...100 { ledger.record(.milliseconds(milliseconds), for: a) }
        #expect(ledger.delay(for: a) == .milliseconds(96), "the 95th of 1...100 ms, rounded up")
        #expect(ledger.delay(for: b) == .milliseconds(70), "each origin its own")
        // All fast: the floor.
        for _ in 0..<300 { ledger.record(.microseconds(100), for: b) }
        #expect(ledger.delay(for: b) == .milliseconds(5))
        // The ring keeps the last 256: after 256 slow ones, the fast ones are gone.
        for _ in 0..<256 { ledger.record(.milliseconds(40), for: b) }
        #expect(ledger.delay(for: b) == .milliseconds(40))

        let fixed = HedgingLedger(hedging: Hedging(delay: .fixed(.milliseconds(30))))
        for _ in 0..<50 { fixed.record(.seconds(1), for: a) }
        #expect(fixed.delay(for: a) == .milliseconds(30))
        #expect("\(Hedging.Delay.percentile(0.95))" == "p95" && "\(Hedging.Delay.fixed(.milliseconds(30)))" == "30ms")
    }

    /// The first attempt stalls; 50 ms later a hedge goes on a second connection and answers at
    /// once. The request succeeds with the hedge's answer, and the stalled attempt's transfer is
    /// cancelled: its connection closes, without waiting for an answer that never comes.
    @Test func aStalledAttemptIsOvertakenAndCancelled() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next() == 1 ? TestResponse(behavior: .stall) : .text("hedge")
        }
        defer { server.shutdown() }
        let monitor = AttemptRecorder()
        let connect = Connect(
            middleware: ConnectMiddleware(monitors: [monitor], hedging: Hedging(delay: .fixed(.milliseconds(50)))))

        let body = try await connect.request(TestConnector(server, "/")).value
        #expect(String(decoding: body, as: UTF8.self) == "hedge")
        #expect(hits.value == 2 && server.connectionCount == 2)
        #expect(monitor.started.withLock { $0 } == [1, 2])
        #expect(await eventually { server.openConnectionCount == 1 }, "the stalled attempt's connection is closed")
    }

    /// Spans show each attempt: the stalled first one, cancelled, and the hedge, counted as a
    /// resend; each request on the wire carries its own span's context.
    @Test func eachHedgeIsASpanOfItsOwn() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next() == 1 ? TestResponse(behavior: .stall) : .text("hedge")
        }
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        var configuration = ConnectConfiguration()
        configuration.tracer = tracer
        let connect = Connect(
            middleware: ConnectMiddleware(hedging: Hedging(delay: .fixed(.milliseconds(50)))),
            configuration: configuration)
        _ = try await connect.request(TestConnector(server, "/")).value
        #expect(await eventually { tracer.finishedSpans.count == 2 }, "the cancelled attempt's span ends too")
        let spans = tracer.finishedSpans
        let resendCounts = spans.map { $0.attributes["http.request.resend_count"]?.toSpanAttribute() }
        #expect(resendCounts.contains(nil) && resendCounts.contains(.int64(1)), "\(resendCounts)")
        let onTheWire = Set(server.requests.compactMap { $0.header(InMemoryTracer.spanIDKey) })
        #expect(onTheWire == Set(spans.map(\.spanContext.spanID)))
    }

    /// A quick answer is never hedged: the delay has not passed.
    @Test func aQuickAnswerIsNotHedged() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(hedging: Hedging(delay: .fixed(.seconds(60)))))
        for _ in 0..<5 { _ = try await connect.request(TestConnector(server, "/")).value }
        #expect(server.requests.count == 5)
    }

    /// With nothing left in the retry budget the first attempt runs alone, however slow.
    @Test func hedgesArePaidFromTheRetryBudget() async throws {
        let server = try TestServer { _ in
            TestResponse(status: 200, body: Data("slow".utf8), behavior: .delay(.milliseconds(300)))
        }
        defer { server.shutdown() }
        let connect = Connect(
            middleware: ConnectMiddleware(
                retryBudget: RetryBudget(share: 0, minimumPerSecond: 0),
                hedging: Hedging(delay: .fixed(.milliseconds(10)))))
        #expect(try await connect.request(TestConnector(server, "/")).value == Data("slow".utf8))
        #expect(server.requests.count == 1)
    }

    /// A keyed POST is hedged with its key and its body on both attempts; a POST without a key
    /// is not hedged.
    @Test func aKeyedPostIsHedgedWithItsKey() async throws {
        let hits = Hits()
        let server = try TestServer { request in
            hits.next() == 1 ? TestResponse(behavior: .stall) : .text("charged \(request.bodyText)")
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(hedging: Hedging(delay: .fixed(.milliseconds(50)))))
        var request = Request(method: .post, url: server.baseURL, body: .data(Data("order".utf8)))
        request.idempotencyKey = .random()
        let body = try await connect.send(request).value
        #expect(String(decoding: body.body, as: UTF8.self) == "charged order")
        let recorded = server.requests
        #expect(recorded.count == 2)
        #expect(
            recorded.map { $0.header("Idempotency-Key") } == Array(repeating: request.idempotencyKey?.value, count: 2))
        #expect(recorded.allSatisfy { $0.bodyText == "order" })

        let plain = try TestServer { _ in
            TestResponse(status: 200, body: Data("once".utf8), behavior: .delay(.milliseconds(200)))
        }
        defer { plain.shutdown() }
        _ = try await connect.send(Request(method: .post, url: plain.baseURL, body: .data(Data("x".utf8)))).value
        #expect(plain.requests.count == 1)
    }

    /// The first attempt fails while the hedge is out: the request waits for the hedge, whose
    /// answer wins. When every attempt fails, the last failure is the request's.
    @Test func aFailureWaitsForTheOtherAttempt() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            switch hits.next() {
            // Each first attempt fails after its hedge, 20 ms in, went out, with seconds to spare
            // for a machine a sanitizer run keeps busy (a first attempt that fails before its
            // hedge is due fails without one; a CI run once stalled the test process for 11 s),
            // and the first hedge answers after that failure.
            case 1: return TestResponse(status: 503, behavior: .delay(.seconds(6)))
            case 2: return TestResponse(status: 200, body: Data("second".utf8), behavior: .delay(.seconds(9)))
            case 3: return TestResponse(status: 503, behavior: .delay(.seconds(6)))
            default: return TestResponse(status: 502)
            }
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(hedging: Hedging(delay: .fixed(.milliseconds(20)))))
        #expect(try await connect.request(TestConnector(server, "/")).value == Data("second".utf8))
        let error = await connectError(connect.request(TestConnector(server, "/")))
        #expect(error?.statusCode == 503 || error?.statusCode == 502)
        #expect(hits.value == 4)
    }

    /// Cancelling the request while both attempts are out ends both: their connections close.
    @Test func cancellingEndsEveryAttempt() async throws {
        let server = try TestServer { _ in TestResponse(behavior: .stall) }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(hedging: Hedging(delay: .fixed(.milliseconds(20)))))
        let future = connect.request(TestConnector(server, "/"))
        #expect(await eventually { server.requests.count == 2 })
        future.cancel()
        let error = await connectError(future)
        #expect(error == .cancelled)
        #expect(await eventually { server.openConnectionCount == 0 }, "both transfers cancelled")
    }
}

/// Records the attempt numbers monitors saw start.
final class AttemptRecorder: ConnectMonitor {
    let started = Locked<[Int]>([])
    func requestStarted(_ request: Request, attempt: Int) { started.withLock { $0.append(attempt) } }
}

/// Whether `condition` holds within a minute, polled every 10 ms: for what follows a response
/// by a little (a connection closing), with room for a loaded machine.
