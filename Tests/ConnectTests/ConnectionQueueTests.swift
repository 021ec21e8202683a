import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// Requests that wait in libcurl's queue for a connection, when more are in flight than
/// `maximumConnectionsPerHost` allows: the connect timeout bounds connecting and not that wait,
/// and the request's own timeout bounds both, on every libcurl (see
/// ``ResendDecision/startsOverAfterWaitingInQueue(_:beganConnecting:timeLeft:)``).
@Suite("Connection queue", .timeLimit(.minutes(3)))
struct ConnectionQueueTests {
    /// A client of one connection per host, with a connect timeout of `connectTimeout`.
    static func client(connectTimeout: Duration) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 1
        configuration.connectTimeout = connectTimeout
        return Connect(configuration: configuration)
    }

    @Test func requestsQueuedBehindSlowAnswersOutwaitTheConnectTimeout() async throws {
        // Six answers of 600 ms through one connection: the last waits 3 s, three connect
        // timeouts, for a connection that is busy and never slow to connect.
        let server = try TestServer { request in
            TestResponse(body: Data(request.uri.utf8), behavior: .delay(.milliseconds(600)))
        }
        defer { server.shutdown() }
        let connect = Self.client(connectTimeout: .seconds(1))
        let futures = (0..<6).map { connect.request(TestConnector(server, "/queued/\($0)")) }
        let bodies = try await Future.whenAll(futures).value
        #expect(bodies.enumerated().allSatisfy { String(decoding: $1, as: UTF8.self) == "/queued/\($0)" })
        #expect(server.requests.count == 6, "each went out once")
        #expect(server.connectionCount == 1)
    }

    @Test func theRequestsTimeoutBoundsItsWaitForAConnection() async throws {
        let server = try TestServer { request in
            request.path == "/stall" ? TestResponse(behavior: .stall) : .text("answered")
        }
        defer { server.shutdown() }
        let connect = Self.client(connectTimeout: .seconds(1))
        // The one connection is taken by a request that is never answered; the next waits.
        let stalled = connect.request(TestConnector(server, "/stall", timeout: .seconds(30)))
        #expect(await eventually(within: .seconds(20)) { server.requests.count == 1 })
        let started = ContinuousClock.now
        let waiting = await connectError(connect.request(TestConnector(server, "/next", timeout: .milliseconds(2_500))))
        let waited = ContinuousClock.now - started
        guard case .timedOut? = waiting else {
            Issue.record("expected a timeout, got \(String(describing: waiting))")
            return
        }
        #expect(waited >= .milliseconds(2_400), "the request's timeout, not the connect timeout, ended the wait")
        #expect(waited < .seconds(25), "the request's timeout ended the wait, not the stalled request's")
        #expect(server.requests.map(\.path) == ["/stall"], "the waiting request never went out")
        _ = stalled.cancel()
    }
}
