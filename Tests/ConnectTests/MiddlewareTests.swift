import ConnectFutures
import ConnectTestServer
import Foundation
import Logging
import Testing

@testable import Connect

struct HeaderAdapter: RequestAdapter {
    let header: HTTPHeader
    func adapt(_ request: Request) async throws -> Request {
        var request = request
        request.setHeader(header)
        return request
    }
}

struct FailingAdapter: RequestAdapter {
    func adapt(_ request: Request) async throws -> Request { throw AppError.server("no key") }
}

/// A thread-safe counter for server handlers and refresh closures.
final class Hits: Sendable {
    private let count = Locked(0)
    @discardableResult func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
    var value: Int { count.withLock { $0 } }
}

/// Collects log lines.
struct CapturingLogHandler: LogHandler {
    let lines: Recorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level): \(event.message)")
    }
}

final class Recorder: Sendable {
    private let items = Locked<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}

/// Retries quickly, so tests stay fast.
let quickPolicy = RetryPolicy(
    maximumAttempts: 3, baseDelay: .milliseconds(10), maximumDelay: .milliseconds(50), jitter: 0)
/// `quickPolicy` that waits as long as a server's `Retry-After` asks, up to a minute, with no
/// overall deadline: on a loaded machine the first attempt alone can take seconds, and a deadline
/// counted from it would turn a test's "wait 30 s" into "no retry".
let patientPolicy = RetryPolicy(
    maximumAttempts: 3, baseDelay: .milliseconds(10), maximumDelay: .seconds(60), deadline: nil, jitter: 0)

@Suite("Middleware", .timeLimit(.minutes(3)))
struct MiddlewareTests {
    @Test func anAdapterAddsAHeaderTheServerSees() async throws {
        let server = try TestServer { request in .text(request.header("X-API-Key") ?? "none") }
        defer { server.shutdown() }
        let connect = Connect(
            middleware: ConnectMiddleware(adapters: [
                HeaderAdapter(header: HTTPHeader(name: "X-API-Key", value: "k-123"))
            ]))
        let body = try await connect.request(TestConnector(server, "/")).value
        #expect(String(decoding: body, as: UTF8.self) == "k-123")
    }

    @Test func aThrowingAdapterFailsTheRequestBeforeSending() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [FailingAdapter()]))
        let result = await outcome(connect.request(TestConnector(server, "/")))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? AppError == .server("no key"))
        #expect(server.requests.isEmpty)
    }

    @Test func retriesA503TwiceThenSucceeds() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next() <= 2 ? .json(#"{"message":"busy"}"#, status: 503) : .text("finally")
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))
        let body = try await connect.request(TestConnector(server, "/")).value
        #expect(String(decoding: body, as: UTF8.self) == "finally")
        #expect(hits.value == 3)
    }

    @Test func givesUpAfterMaximumAttempts() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next()
            return .json(#"{"message":"down"}"#, status: 500)
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))
        #expect(await connectError(connect.request(TestConnector(server, "/")))?.statusCode == 500)
        #expect(hits.value == 3)
    }

    @Test func retryAfterInSecondsIsObeyed() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next() == 1 ? TestResponse(status: 429, headers: [("Retry-After", "1")]) : .text("ok")
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: patientPolicy))
        let start = ContinuousClock.now
        _ = try await connect.request(TestConnector(server, "/")).value
        #expect(ContinuousClock.now - start >= .milliseconds(950))
        #expect(hits.value == 2)
    }

    @Test func retryAfterAsAnHTTPDateIsObeyed() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let hits = Hits()
        let server = try TestServer { _ in
            guard hits.next() == 1 else { return .text("ok") }
            return TestResponse(
                status: 503, headers: [("Retry-After", formatter.string(from: Date().addingTimeInterval(2)))])
        }
        defer { server.shutdown() }
        let scheduled = DelayMonitor()
        let connect = Connect(middleware: ConnectMiddleware(retriers: [patientPolicy], monitors: [scheduled]))
        let start = ContinuousClock.now
        _ = try await connect.request(TestConnector(server, "/")).value
        // The date has one-second resolution: "in 2 s" means between 1 and 2 seconds from now.
        // The wait the policy scheduled is checked, not the wall clock, which also counts how
        // long a loaded machine (or ThreadSanitizer) kept this test from running.
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(900))
        #expect(scheduled.delays.count == 1 && scheduled.delays.allSatisfy { $0 <= .seconds(2) })
        #expect(hits.value == 2)
    }

    @Test func postIsNotRetriedUnlessOptedIn() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next()
            return TestResponse(status: 503)
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))
        _ = await outcome(connect.request(TestConnector(server, "/orders", method: .post)))
        #expect(hits.value == 1)

        struct SafePost: Connector {
            let baseURL: URL
            var endpoint: String { "/orders" }
            var method: HTTPMethod { .post }
            var headers: [HTTPHeader] { [] }
            var parameters: (any ParametersRepresentable)? { nil }
            var allowsRetry: Bool? { true }
        }
        _ = await outcome(connect.request(SafePost(baseURL: server.baseURL)))
        #expect(hits.value == 1 + 3)
    }

    @Test func aPostThatNeverReachedTheServerIsRetried() async throws {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), jitter: 0)
        let request = Request(method: .post, url: URL(string: "http://127.0.0.1:1/")!)
        let refused = FailedAttempt(
            request: request,
            error: ConnectError.transport(
                TransportFailure(kind: .connectionRefused, message: "refused", requestSent: false)), response: nil,
            number: 1, elapsed: .zero)
        let reset = FailedAttempt(
            request: request,
            error: ConnectError.transport(
                TransportFailure(kind: .connectionReset, message: "reset", requestSent: true)), response: nil,
            number: 1, elapsed: .zero)
        #expect(policy.isWorthRetrying(refused))
        #expect(!policy.isWorthRetrying(reset))
        let cancelled = FailedAttempt(
            request: request, error: ConnectError.cancelled, response: nil, number: 1, elapsed: .zero)
        #expect(!policy.isWorthRetrying(cancelled))

        // And for real: a refused connection, three attempts.
        let monitor = CountingMonitor()
        let connect = Connect(middleware: ConnectMiddleware(retriers: [policy], monitors: [monitor]))
        let refusing = try RefusingPort()
        let error = await connectError(connect.request(TestConnector(url: refusing.url, method: .post)))
        withExtendedLifetime(refusing) {}
        guard case .transport(let failure)? = error, failure.kind == .connectionRefused, !failure.requestSent else {
            Issue.record("expected refused, got \(String(describing: error))")
            return
        }
        #expect(monitor.started.value == 3)
    }

    @Test func backoffGrowsAndIsCapped() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maximumDelay: .milliseconds(700), jitter: 0)
        let delays = (1...6).map { policy.backoff(afterAttempt: $0) }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(700), .milliseconds(700),
                .milliseconds(700)
            ])
        let jittered = RetryPolicy(baseDelay: .milliseconds(100), maximumDelay: .seconds(10), jitter: 0.5)
        for attempt in 1...5 {
            let full = Duration.milliseconds(100 * (1 << (attempt - 1)))
            let delay = jittered.backoff(afterAttempt: attempt)
            #expect(delay <= full && delay >= full / 2)
        }
    }

    @Test func theDeadlineStopsRetries() async throws {
        let policy = RetryPolicy(
            maximumAttempts: 10, baseDelay: .seconds(1), maximumDelay: .seconds(10), deadline: .seconds(2), jitter: 0)
        let request = Request(url: URL(string: "http://127.0.0.1/")!)
        let busy = Response(statusCode: 503, url: request.url)
        func decision(_ number: Int, _ elapsed: Duration) async -> RetryDecision {
            await policy.retry(
                FailedAttempt(
                    request: request, error: ConnectError.cancelled, response: busy, number: number, elapsed: elapsed))
        }
        guard case .retryAfter(.seconds(1)) = await decision(1, .milliseconds(100)) else {
            Issue.record("expected a retry")
            return
        }
        guard case .doNotRetry = await decision(2, .milliseconds(1_100)) else {
            Issue.record("1.1 s + 2 s passes the deadline")
            return
        }
        guard case .doNotRetry = await decision(1, .milliseconds(1_500)) else {
            Issue.record("1.5 s + 1 s passes the deadline")
            return
        }

        // For real: waits of 3 s then 6 s against a 6 s deadline. The second wait would end past
        // it, so there is never a third attempt. Whether there is a second depends on how long
        // the first took (up to 3 s: yes), and a starved machine can make it take longer, so
        // that is checked against the first attempt's measured length, away from the boundary.
        let realPolicy = RetryPolicy(
            maximumAttempts: 10, baseDelay: .seconds(3), maximumDelay: .seconds(30), deadline: .seconds(6), jitter: 0)
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next()
            return TestResponse(status: 503)
        }
        defer { server.shutdown() }
        let firstAttempt = AttemptTimer()
        let connect = Connect(middleware: ConnectMiddleware(retriers: [realPolicy], monitors: [firstAttempt]))
        _ = await outcome(connect.request(TestConnector(server, "/")))
        #expect(hits.value == 1 || hits.value == 2)
        // The middleware's clock starts between the timer's creation and the first attempt's
        // start (its task can wait for a thread), so the attempt took between these two.
        let (atMost, atLeast) = try #require(firstAttempt.firstAttemptBounds)
        if atMost <= .milliseconds(2_500) { #expect(hits.value == 2) }
        if atLeast >= .milliseconds(3_500) { #expect(hits.value == 1) }
    }

    @Test func aRetryAfterLongerThanTheMaximumDelayIsNotRetried() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next() == 1 ? TestResponse(status: 429, headers: [("Retry-After", "120")]) : .text("ok")
        }
        defer { server.shutdown() }
        // quickPolicy waits 50 ms at most: a server that asks for two minutes gets its 429 back.
        let error = await connectError(
            Connect(middleware: ConnectMiddleware(retrier: quickPolicy)).request(TestConnector(server, "/")))
        #expect(error?.statusCode == 429)
        guard case .http(let failure)? = error else { return }
        #expect(failure.response.header("Retry-After") == "120")
        #expect(hits.value == 1)
    }

    @Test func cancellingDuringABackoffEndsItAtOnce() async throws {
        let server = try TestServer { _ in TestResponse(status: 503, headers: [("Retry-After", "30")]) }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: patientPolicy))
        let future = connect.request(TestConnector(server, "/"))
        #expect(await eventually { server.requests.count == 1 })  // now in its 30 s wait
        future.cancel()
        let error = await connectError(future)
        #expect(error == .cancelled, "\(String(describing: error))")
        // cancelAllRequests reaches a request in its backoff too.
        let another = connect.request(TestConnector(server, "/"))
        #expect(await eventually { server.requests.count == 2 })
        try await Task.sleep(for: .milliseconds(50))
        connect.cancelAllRequests()
        #expect(await connectError(another) == .cancelled)
        #expect(server.requests.count == 2)
    }

    @Test func fiftyConcurrent401sRefreshOnce() async throws {
        let server = try freshTokenServer()
        defer { server.shutdown() }
        let refreshes = Hits()
        let authenticator = TokenAuthenticator(token: "stale") {
            refreshes.next()
            try await Task.sleep(for: .milliseconds(100))
            return "fresh"
        }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [authenticator], retriers: [authenticator]))
        let futures = (0..<50).map { connect.request(TestConnector(server, "/me/\($0)")) }
        let bodies = try await Future.whenAll(futures).value
        #expect(bodies.allSatisfy { $0 == Data("ok".utf8) })
        #expect(refreshes.value == 1)
        #expect(await authenticator.token == "fresh")
        // Requests made after the refresh use the new token straight away.
        let before = server.requests.count
        _ = try await connect.request(TestConnector(server, "/me")).value
        #expect(server.requests.count == before + 1)
        #expect(refreshes.value == 1)
    }

    @Test func aFailedRefreshFailsThemAll() async throws {
        let server = try TestServer { _ in .json(#"{"message":"expired"}"#, status: 401) }
        defer { server.shutdown() }
        let refreshes = Hits()
        let authenticator = TokenAuthenticator(token: "stale") {
            refreshes.next()
            try await Task.sleep(for: .milliseconds(50))
            throw AppError.sessionExpired
        }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [authenticator], retriers: [authenticator]))
        let futures = (0..<50).map { connect.request(TestConnector(server, "/me/\($0)")) }
        for future in futures {
            let result = await outcome(future)
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error as? AppError == .sessionExpired)
        }
        #expect(refreshes.value == 1)
        // Bounded: each request was sent at most twice.
        #expect(server.requests.count <= 100)
        // Later 401s with the same token fail at once with the same error, without a refresh…
        let later = await outcome(connect.request(TestConnector(server, "/me")))
        guard case .failure(let laterError) = later else {
            Issue.record("expected a failure")
            return
        }
        #expect(laterError as? AppError == .sessionExpired)
        #expect(refreshes.value == 1)
        // …until the app sets a new token.
        await authenticator.setToken("signed-in-again")
        _ = await outcome(connect.request(TestConnector(server, "/me")))
        #expect(refreshes.value == 2)
    }

    @Test func cancellingDuringARefreshEndsTheWait() async throws {
        let server = try TestServer { _ in .json("{}", status: 401) }
        defer { server.shutdown() }
        let authenticator = TokenAuthenticator(token: "stale") {
            try await Task.sleep(for: .seconds(30))
            return "fresh"
        }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [authenticator], retriers: [authenticator]))
        let future = connect.request(TestConnector(server, "/me"))
        try await Task.sleep(for: .milliseconds(200))
        future.cancel()
        #expect(await connectError(future) == .cancelled)
    }

    @Test func interceptorsPrepareAndProcess() async throws {
        struct Stamp: Interceptor {
            func prepare(_ request: inout Request) async throws {
                request.setHeader(HTTPHeader(name: "X-Stamp", value: "1"))
            }
        }
        struct OKFlag: Interceptor {
            func process(_ result: inout Result<Response, any Error>, for request: Request) async {
                guard case .success(let response) = result,
                    let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
                    json["ok"] as? Bool == false
                else { return }
                result = .failure(AppError.server(json["error"] as? String ?? "unknown"))
            }
        }
        let server = try TestServer { request in
            request.header("X-Stamp") == "1" ? .json(#"{"ok":false,"error":"Card declined"}"#) : .text("unstamped")
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(interceptors: [Stamp(), OKFlag()]))
        let result = await outcome(connect.request(TestConnector(server, "/pay")))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? AppError == .server("Card declined"))
    }

    @Test func theLoggingMonitorsOutputForOneRequest() async throws {
        let hits = Hits()
        let server = try TestServer { _ in hits.next() == 1 ? .json(#"{"message":"busy"}"#, status: 503) : .text("done")
        }
        defer { server.shutdown() }
        let lines = Recorder()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let connect = Connect(
            middleware: ConnectMiddleware(retriers: [quickPolicy], monitors: [LoggingMonitor(logger: logger)]))
        _ = try await connect.request(
            TestConnector(server, "/todos/1", parameters: Parameter.query(key: "token", value: "secret"))
        ).value
        let url = "\(server.baseURL.absoluteString)/todos/1"
        let logged = lines.all
        #expect(logged.count == 5)
        guard logged.count == 5 else { return }
        #expect(logged[0] == "info: → GET \(url) (attempt 1)")
        #expect(logged[1].hasPrefix("info: ← 503 Service Unavailable for GET \(url) in "))
        #expect(logged[2] == "info: ↻ GET \(url) again in 10 ms after: HTTP 503 Service Unavailable: busy")
        #expect(logged[3] == "info: → GET \(url) (attempt 2)")
        #expect(logged[4].hasPrefix("info: ← 200 OK for GET \(url) in ") && logged[4].hasSuffix(" ms, 4 bytes"))
        #expect(!logged.joined().contains("secret"))
    }
}

/// Records the waits retriers schedule.
final class DelayMonitor: ConnectMonitor {
    private let recorded = Locked<[Duration]>([])
    var delays: [Duration] { recorded.withLock { $0 } }
    func retryScheduled(for request: Request, after error: any Error, delay: Duration, attempt: Int) {
        recorded.withLock { $0.append(delay) }
    }
}

/// When the first attempt started and its response arrived, from the timer's creation.
final class AttemptTimer: ConnectMonitor {
    private let created = ContinuousClock.now
    private let stamps = Locked<(started: Duration?, answered: Duration?)>((nil, nil))
    /// How long the first attempt took: at most (counted from the timer's creation) and at least
    /// (counted from the attempt's start).
    var firstAttemptBounds: (atMost: Duration, atLeast: Duration)? {
        stamps.withLock { stamps in
            guard let started = stamps.started, let answered = stamps.answered else { return nil }
            return (answered, answered - started)
        }
    }
    func requestStarted(_ request: Request, attempt: Int) {
        let now = ContinuousClock.now - created
        stamps.withLock { if $0.started == nil { $0.started = now } }
    }
    func responseReceived(_ response: Response, for request: Request, attempt: Int) {
        let now = ContinuousClock.now - created
        stamps.withLock { if $0.answered == nil { $0.answered = now } }
    }
}

final class CountingMonitor: ConnectMonitor {
    let started = Hits()
    func requestStarted(_ request: Request, attempt: Int) { started.next() }
}
