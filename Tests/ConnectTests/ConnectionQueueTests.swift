import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// Requests that wait in libcurl's queue for a connection, when more are in flight than
/// `maximumConnectionsPerHost` allows: the connect timeout bounds connecting and not that wait,
/// and the request's own timeout bounds both, on every libcurl (see
/// ``ResendDecision/startsOverAfterWaitingInQueue(_:connectingLasted:connectionChosen:connectTimeout:timeLeft:)``).
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

    /// A request that leaves the queue just before the connect timeout and then needs time to
    /// connect gets the connect timeout for its own connecting: libcurl 8 ends it by the wait
    /// (counted since it first asked for a connection) soon after it opened its socket, and it
    /// starts over. Every TLS handshake takes 1 s; the one connection's first answer takes 2.5 s
    /// more, then closes it: the request queued behind it waits 3.5 s of a 4 s connect timeout,
    /// then needs 1 s to connect.
    @Test(.enabled(if: PythonPeer.isInstalled("python3") || ProcessInfo.processInfo.environment["CI"] != nil))
    func aRequestThatLeavesTheQueueLateHasTheConnectTimeoutForItsConnecting() async throws {
        let peer = try await PythonPeer(script: "slow_handshake_server.py") {
            ["\($0)", NginxServer.file("server.pem").path, NginxServer.file("server.key").path, "1.0", "2.5"]
        }
        defer { peer.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 1
        configuration.connectTimeout = .seconds(4)
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        let connect = Connect(configuration: configuration)
        let url = URL(string: "https://localhost:\(peer.port)")!
        let busy = connect.request(TestConnector(url: url, endpoint: "/busy"))
        // The first takes the one connection; the second is added once the first is connecting.
        try await Task.sleep(for: .milliseconds(300))
        let next = connect.request(TestConnector(url: url, endpoint: "/next"))
        let bodies = try await Future.whenAll([busy, next]).value.map { String(decoding: $0, as: UTF8.self) }
        #expect(bodies == ["/busy 1", "/next 1"], "each answered, each sent once")
    }

    /// A burst many times the connections allowed, most of it waiting in the queue longer than
    /// the connect timeout: every request goes out once, over the connections allowed and no
    /// others. libcurl from 8.8 counts the wait toward the connect timeout, and a transfer whose
    /// time ran out as it took an idle connection was ended there, and that connection closed
    /// with it, so the burst went out over ever new connections (see
    /// ``LibcurlDefects/countsQueueWaitInConnectTimeout`` and ``QueuedConnectClock``).
    @Test func aBurstWaitingPastTheConnectTimeoutKeepsItsConnections() async throws {
        let server = try TestServer { request in
            TestResponse(body: Data(request.uri.utf8), behavior: .delay(.milliseconds(20)))
        }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 8
        configuration.connectTimeout = .seconds(1)
        let connect = Connect(configuration: configuration)
        // 1,000 answers of 20 ms through 8 connections: the last wait 2.5 s or more, more than
        // two connect timeouts.
        let futures = (0..<1_000).map { connect.request(TestConnector(server, "/burst/\($0)")) }
        let bodies = try await Future.whenAll(futures).value
        #expect(bodies.enumerated().allSatisfy { String(decoding: $1, as: UTF8.self) == "/burst/\($0)" })
        #expect(server.requests.count == 1_000, "each went out once")
        #expect(server.connectionCount <= 8, "the connections allowed, kept for the whole burst")
    }

    @Test func theRequestsTimeoutBoundsItsWaitForAConnection() async throws {
        let server = try TestServer { request in
            request.path == "/stall" ? TestResponse(behavior: .stall) : .text("answered")
        }
        defer { server.shutdown() }
        let connect = Self.client(connectTimeout: .seconds(1))
        // The one connection is taken by a request that is never answered (and cancelled at the
        // end: its timeout is far past anything a loaded run can stall for); the next waits.
        let stalled = connect.request(TestConnector(server, "/stall", timeout: .seconds(600)))
        #expect(await eventually(within: .seconds(300)) { server.requests.count == 1 })
        let started = ContinuousClock.now
        let waiting = await connectError(connect.request(TestConnector(server, "/next", timeout: .milliseconds(2_500))))
        let waited = ContinuousClock.now - started
        guard case .timedOut? = waiting else {
            Issue.record("expected a timeout, got \(String(describing: waiting))")
            return
        }
        #expect(waited >= .milliseconds(2_400), "the request's timeout, not the connect timeout, ended the wait")
        #expect(waited < .seconds(300), "the request's timeout ended the wait, not the stalled request's")
        #expect(server.requests.map(\.path) == ["/stall"], "the waiting request never went out")
        _ = stalled.cancel()
    }
}
