import CCurl
import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The transfer loop drives libcurl with `curl_multi_socket_action` (`MultiSocketWatch`): it
/// watches the sockets libcurl names, forgets them as transfers leave, and hands libcurl what
/// poll(2) found on them in libcurl's terms.
@Suite("The loop driven by libcurl's sockets", .timeLimit(.minutes(2)))
struct SocketDrivenLoopTests {
    struct MaskCase: Sendable, CustomStringConvertible {
        let returned: Int32
        let waitedFor: Int32
        let mask: Int32
        let description: String
    }

    static let maskCases: [MaskCase] = [
        MaskCase(returned: POLLIN, waitedFor: POLLIN, mask: CURL_CSELECT_IN, description: "readable"),
        MaskCase(returned: POLLOUT, waitedFor: POLLOUT, mask: CURL_CSELECT_OUT, description: "writable"),
        MaskCase(
            returned: POLLIN | POLLOUT, waitedFor: POLLIN | POLLOUT, mask: CURL_CSELECT_IN | CURL_CSELECT_OUT,
            description: "both"),
        MaskCase(returned: POLLPRI, waitedFor: POLLIN, mask: CURL_CSELECT_IN, description: "urgent data reads"),
        MaskCase(
            returned: POLLHUP, waitedFor: POLLIN, mask: CURL_CSELECT_IN | CURL_CSELECT_ERR,
            description: "a hang-up while reading is read, to find the end"),
        MaskCase(
            returned: POLLERR, waitedFor: POLLOUT, mask: CURL_CSELECT_OUT | CURL_CSELECT_ERR,
            description: "an error while connecting or writing is written, to find the error"),
        MaskCase(
            returned: POLLERR | POLLHUP, waitedFor: POLLIN | POLLOUT,
            mask: CURL_CSELECT_IN | CURL_CSELECT_OUT | CURL_CSELECT_ERR, description: "a failure while waiting for both"
        ),
        MaskCase(
            returned: POLLNVAL, waitedFor: POLLIN, mask: CURL_CSELECT_IN | CURL_CSELECT_ERR,
            description: "a socket closed under the poll"),
        MaskCase(returned: 0, waitedFor: POLLIN, mask: 0, description: "nothing")
    ]

    @Test(arguments: maskCases)
    func pollResultsBecomeLibcurlsMasks(_ testCase: MaskCase) {
        #expect(
            MultiSocketWatch.actionMask(returned: Int16(testCase.returned), waitedFor: Int16(testCase.waitedFor))
                == testCase.mask)
    }

    @Test func libcurlsWishesBecomePollEvents() {
        #expect(MultiSocketWatch.pollEvents(CURL_POLL_IN) == Int16(POLLIN))
        #expect(MultiSocketWatch.pollEvents(CURL_POLL_OUT) == Int16(POLLOUT))
        #expect(MultiSocketWatch.pollEvents(CURL_POLL_INOUT) == Int16(POLLIN | POLLOUT))
        #expect(MultiSocketWatch.pollEvents(CURL_POLL_NONE) == 0)
    }

    /// How many sockets the loop watches, read on the loop thread by the observer of a request
    /// to `server` (observers run there with `runsCallbacksOnTransferThread`); `nil` when the
    /// observer ran elsewhere (attached after the response came).
    static func watchedSockets(_ client: Connect, _ loop: TransferLoop, _ server: TestServer) async throws -> Int? {
        try await withCheckedThrowingContinuation { continuation in
            client.request(TestConnector(server, "/")).observe { result in
                let count = loop.isLoopThread ? loop.multiSockets.watchedSocketCount : nil
                continuation.resume(with: result.map { _ in count })
            }
        }
    }

    /// How `future` ends.
    static func outcome<Value: Sendable>(_ future: Future<Value>) async -> Result<Value, any Error> {
        do {
            return .success(try await future.value)
        } catch {
            return .failure(error)
        }
    }

    /// The first count `watchedSockets` reads on the loop thread, in up to 20 tries.
    static func watchedSocketsOnTheLoopThread(
        _ client: Connect, _ loop: TransferLoop, _ server: TestServer
    ) async throws -> Int {
        for _ in 0..<20 {
            if let count = try await watchedSockets(client, loop, server) { return count }
        }
        Issue.record("no observer ran on the loop thread")
        return -1
    }

    /// Requests go on while 40 transfers wait on a server that never answers: each waiting
    /// transfer's socket is watched, a request with a timeout among them ends at its timer, and
    /// once the waiting ones are cancelled the loop watches none of their sockets.
    @Test func requestsBesideTransfersThatWaitAndTheSocketsForgottenAfter() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let silent = try RawServer { _, _ in [.stall] }
        defer { silent.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.runsCallbacksOnTransferThread = true
        configuration.maximumConnectionsPerHost = 64
        let client = Connect(configuration: configuration)
        let loop = try #require(client.transport as? CurlTransport).loop

        let waiting = (0..<40).map { _ in client.request(TestConnector(silent, "/wait")) }
        for _ in 0..<20 {
            let body = try await client.request(TestConnector(server, "/answered")).value
            #expect(String(decoding: body, as: UTF8.self) == "/answered")
        }
        // Every waiting transfer has connected and sent its request by the time 20 others have
        // come and gone: its socket waits for the answer.
        #expect(try await Self.watchedSocketsOnTheLoopThread(client, loop, server) >= 40)

        let timedOut = await Self.outcome(client.request(TestConnector(silent, "/timed", timeout: .milliseconds(300))))
        guard case .failure(ConnectError.timedOut) = timedOut else {
            Issue.record("expected a timeout, got \(timedOut)")
            return
        }

        for future in waiting { _ = future.cancel() }
        for future in waiting {
            guard case .failure(ConnectError.cancelled) = await Self.outcome(future) else {
                Issue.record("a waiting transfer did not end cancelled")
                continue
            }
        }
        #expect(try await Self.watchedSocketsOnTheLoopThread(client, loop, server) <= 1)
    }

    /// libcurl counts the connections in use in its connection cache: with more transfers in
    /// flight than the cache holds (here 20 waiting on 10 silent servers, against the 16 a client
    /// with 2 connections per host keeps), each finished connection was closed and the next
    /// request opened another. The cache grows with the transfers in flight, so one connection
    /// carries them all.
    @Test func aConnectionIsKeptWhileMoreTransfersWaitThanTheCacheHolds() async throws {
        let seen = Locked<Set<Int>>([])
        let server = try RawServer { request, _ in
            seen.withLock { _ = $0.insert(request.connectionID) }
            return [.send(RawServer.response(body: "kept"))]
        }
        defer { server.shutdown() }
        let silent = try (0..<10).map { _ in try RawServer { _, _ in [.stall] } }
        defer { silent.forEach { $0.shutdown() } }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 2
        let client = Connect(configuration: configuration)

        let waiting = silent.flatMap { server in (0..<2).map { _ in client.request(TestConnector(server, "/wait")) } }
        for _ in 0..<10 {
            let body = try await client.request(TestConnector(server, "/")).value
            #expect(String(decoding: body, as: UTF8.self) == "kept")
        }
        #expect(seen.withLock { $0.count } == 1)
        for future in waiting { _ = future.cancel() }
    }

    #if os(Linux)
    /// What `read` finds on the loop thread, run by the observer of a request to `server` (the
    /// client runs callbacks on the transfer thread).
    static func onLoopThread<Value: Sendable>(
        _ client: Connect, _ loop: TransferLoop, _ server: LocalServer, _ read: @escaping @Sendable () -> Value
    ) async throws -> Value {
        for _ in 0..<20 {
            let value: Value? = try await withCheckedThrowingContinuation { continuation in
                client.request(TestConnector(server, "/")).observe { result in
                    let value = loop.isLoopThread ? read() : nil
                    continuation.resume(with: result.map { _ in value })
                }
            }
            if let value { return value }
        }
        throw ConnectError.cancelled
    }

    /// A keep-alive connection's socket stays in the epoll set between its requests: each
    /// request waits for its response (the server answers after a pause) at no change to the
    /// set, where taking the socket out as each transfer ends and adding it back for the next
    /// cost two or three `epoll_ctl` calls a request.
    @Test func aKeptConnectionsRequestsChangeNoEpollRegistration() async throws {
        let connections = Locked<Set<Int>>([])
        let server = try RawServer { request, _ in
            connections.withLock { _ = $0.insert(request.connectionID) }
            return [.pause(.milliseconds(3)), .send(RawServer.response(body: "kept"))]
        }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.runsCallbacksOnTransferThread = true
        let client = Connect(configuration: configuration)
        let loop = try #require(client.transport as? CurlTransport).loop
        #expect(loop.multiSockets.usesEpollSet)

        let before = try await Self.onLoopThread(client, loop, server) { loop.multiSockets.epollSetChanges }
        for _ in 0..<10 {
            let body = try await client.request(TestConnector(server, "/")).value
            #expect(String(decoding: body, as: UTF8.self) == "kept")
        }
        let after = try await Self.onLoopThread(client, loop, server) { loop.multiSockets.epollSetChanges }
        #expect(connections.withLock { $0.count } == 1)
        #expect(after - before <= 1)
    }

    /// An idle connection kept in the epoll set that its server closes leaves the set at the
    /// first wait that finds it readable, rather than wake every wait after (libcurl would
    /// close it only when it next prunes its connection cache, a second later), and the next
    /// request to that server goes out on a new connection.
    @Test func anIdleConnectionItsServerClosesLeavesTheEpollSet() async throws {
        let connections = Locked<Set<Int>>([])
        let closing = try RawServer { request, _ in
            connections.withLock { _ = $0.insert(request.connectionID) }
            return [.send(RawServer.response(body: "once")), .pause(.milliseconds(20)), .close]
        }
        defer { closing.shutdown() }
        let steady = try RawServer { _, _ in [.send(RawServer.response(body: "steady"))] }
        defer { steady.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.runsCallbacksOnTransferThread = true
        let client = Connect(configuration: configuration)
        let loop = try #require(client.transport as? CurlTransport).loop

        let body = try await client.request(TestConnector(closing, "/")).value
        #expect(String(decoding: body, as: UTF8.self) == "once")
        // The steady server's connection stays registered; the closed one leaves the set once
        // a wait finds it readable. Each look is a request to the steady server, a few waits.
        let waitsBefore = try await Self.onLoopThread(client, loop, steady) { loop.multiSockets.epollWaits }
        var registered = try await Self.onLoopThread(client, loop, steady) { loop.multiSockets.epollSetSize }
        var looks = 1
        for _ in 0..<500 where registered > 1 {
            try await Task.sleep(for: .milliseconds(10))
            registered = try await Self.onLoopThread(client, loop, steady) { loop.multiSockets.epollSetSize }
            looks += 1
        }
        let waitsAfter = try await Self.onLoopThread(client, loop, steady) { loop.multiSockets.epollWaits }
        #expect(registered == 1)
        // A readable socket left in the set would return every wait at once: thousands of them
        // while the test sleeps.
        #expect(waitsAfter - waitsBefore <= 20 * (looks + 1))
        let again = try await client.request(TestConnector(closing, "/")).value
        #expect(String(decoding: again, as: UTF8.self) == "once")
        #expect(connections.withLock { $0.count } == 2)
    }
    #endif

}
