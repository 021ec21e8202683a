import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// `runsCallbacksOnTransferThread`: observers and steps run on the transfer thread, and
/// requests they start are picked up before the loop sleeps; redirects, retries, progress,
/// streams and cancellation behave as with a callback queue.
@Suite("Callbacks on the transfer thread", .timeLimit(.minutes(2)))
struct TransferThreadCallbackTests {
    /// A value behind a lock, for the observers' records.
    final class Box<Value: Sendable>: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    static func client(middleware: any ConnectMiddlewareProtocol = ConnectMiddleware()) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.runsCallbacksOnTransferThread = true
        return Connect(middleware: middleware, configuration: configuration)
    }

    struct Echo: Decodable, Sendable { var path: String }

    /// Echoes each request's path as JSON; `/redirect` redirects to `/landed`; `/late` sends its
    /// body once the test opens `lateBody`.
    static func echoServer(lateBody: TestGate = TestGate()) throws -> TestServer {
        try TestServer { request in
            switch request.path {
            case "/redirect": return TestResponse(status: 302, headers: [("Location", "/landed")])
            case "/late":
                return TestResponse(
                    headers: [("Content-Type", "application/json")], body: Data(#"{"path":"/late"}"#.utf8),
                    behavior: .holdBody(until: lateBody))
            default:
                return TestResponse(
                    headers: [("Content-Type", "application/json")], body: Data(#"{"path":"\#(request.path)"}"#.utf8))
            }
        }
    }

    @Test func observersAndStepsRunOnTheTransferThread() async throws {
        let lateBody = TestGate()
        let server = try Self.echoServer(lateBody: lateBody)
        let client = Self.client()
        let transport = try #require(client.transport as? CurlTransport)
        let onTransferThread = Box<[Bool]>([])
        let decoded = client.request(TestConnector(server, "/late"))
            .map { data -> Data in
                // Compared by identity: under ThreadSanitizer the system thread name may not stick.
                onTransferThread.withLock { $0.append(transport.isOnTransferThread) }
                return data
            }
            .decoded(toType: Echo.self)
        // The body comes once the steps are attached: a step attached to a completed future runs
        // at once on the attaching thread.
        lateBody.open()
        let echo = try await decoded.value
        #expect(echo.path == "/late")
        let landed = try await client.request(TestConnector(server, "/redirect")).decoded(toType: Echo.self).value
        #expect(landed.path == "/landed")
        #expect(onTransferThread.withLock { $0 } == [true])
    }

    /// Each request starts from the observer of the one before: the loop takes it from its
    /// inbox before it sleeps, with no wakeup, and nothing stalls.
    @Test func requestsStartedFromObserversGoOut() async throws {
        let server = try Self.echoServer()
        let client = Self.client()
        let paths = try await oneAfterAnother(
            200, request: { client.request(TestConnector(server, "/n/\($0)")).decoded(toType: Echo.self) }
        ) { $0.path }
        #expect(paths == (0..<200).map { "/n/\($0)" })
    }

    @Test func retriesProgressAndCancellationFromAnObserver() async throws {
        let attempts = Box(0)
        let server = try TestServer { request in
            switch request.path {
            case "/flaky":
                let attempt = attempts.withLock { count -> Int in
                    count += 1
                    return count
                }
                return attempt < 3 ? TestResponse(status: 503) : TestResponse(body: Data("third".utf8))
            case "/big":
                return TestResponse(
                    body: Data(repeating: 1, count: 4 << 20),
                    behavior: .trickle(chunk: 256 << 10, every: .milliseconds(5)))
            default: return TestResponse(body: Data("slow".utf8), behavior: .delay(.seconds(30)))
            }
        }
        let client = Self.client(
            middleware: ConnectMiddleware(
                retrier: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5), jitter: 0)))
        #expect(try await client.request(TestConnector(server, "/flaky")).value == Data("third".utf8))

        let reports = Box(0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "transfer-thread-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let downloaded = try await client.download(
            TestConnector(server, "/big"), to: file, progress: ProgressHandler { _ in reports.withLock { $0 += 1 } }
        ).value
        #expect(try Data(contentsOf: downloaded.location).count == 4 << 20)
        #expect(reports.withLock { $0 } > 0)

        // An observer on the transfer thread cancels another request of the same client.
        let slow = client.request(TestConnector(server, "/slow"))
        client.request(TestConnector(server, "/flaky")).observe { _ in slow.cancel() }
        let error = await connectError(slow)
        #expect(error.map { if case .cancelled = $0 { return true } else { return false } } == true)
    }

    @Test func aStreamedResponse() async throws {
        let server = try TestServer { _ in
            TestResponse(
                body: Data(repeating: 2, count: 1 << 20), behavior: .trickle(chunk: 64 << 10, every: .milliseconds(2)))
        }
        let client = Self.client()
        let stream = client.stream(TestConnector(server, "/s"), bufferSize: 128 << 10)
        var total = 0
        for try await chunk in stream { total += chunk.count }
        #expect(total == 1 << 20)
    }
}
