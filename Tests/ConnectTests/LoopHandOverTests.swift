import ConnectFutures
import ConnectTestServer
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Connect

/// The default mode's two loop threads (`LoopBaton`): a response that arrives while nothing
/// else is in flight is completed by the thread that received it, on the callback queue, and
/// nothing a callback does holds the loop back.
@Suite("Callbacks completed by the loop's own thread", .timeLimit(.minutes(2)))
struct LoopHandOverTests {
    static let key = DispatchSpecificKey<String>()

    /// A client whose callback queue is serial and marked, to tell where callbacks ran.
    static func client() -> Connect {
        let queue = DispatchQueue(label: "callbacks")
        queue.setSpecific(key: key, value: "callbacks")
        var configuration = ConnectConfiguration()
        configuration.callbackQueue = queue
        return Connect(configuration: configuration)
    }

    /// Waits, blocking, until `server` has seen a request for `path`; `false` after 10 s.
    static func waitUntil(_ server: TestServer, sees path: String) -> Bool {
        for _ in 0..<10_000 {
            if server.requests.contains(where: { $0.path == path }) { return true }
            usleep(1_000)
        }
        return false
    }

    /// Each request starts from the observer of the one before: one after another, with every
    /// observer on the callback queue and every response its own.
    @Test func requestsStartedFromCallbacksRunOnTheCallbackQueueInTurn() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let client = Self.client()
        let seen = try await oneAfterAnother(200, request: { client.request(TestConnector(server, "/n/\($0)")) }) {
            data in
            "\(DispatchQueue.getSpecific(key: Self.key) ?? "elsewhere") \(String(decoding: data, as: UTF8.self))"
        }
        #expect(seen == (0..<200).map { "callbacks /n/\($0)" })
    }

    /// A callback that starts a request and then keeps its thread (here until the server has
    /// the request) does not keep that request from going out.
    @Test func aRequestStartedByACallbackGoesOutWhileTheCallbackStillRuns() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let client = Self.client()
        let second = Locked<Future<Data>?>(nil)
        let wentOut = await withCheckedContinuation { continuation in
            client.request(TestConnector(server, "/first")).observe { _ in
                second.withLock { $0 = client.request(TestConnector(server, "/second")) }
                continuation.resume(returning: Self.waitUntil(server, sees: "/second"))
            }
        }
        #expect(wentOut)
        let body = try await #require(second.withLock { $0 }).value
        #expect(String(decoding: body, as: UTF8.self) == "/second")
    }

    /// A request from another thread goes out while a callback holds its thread, and its
    /// response waits for the callback queue.
    @Test func aRequestFromAnotherThreadGoesOutWhileACallbackRuns() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let client = Self.client()
        let callbackRuns = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = client.request(TestConnector(server, "/first")).map { data -> Data in
            callbackRuns.signal()
            release.wait()
            return data
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                callbackRuns.wait()
                continuation.resume()
            }
        }
        let other = client.request(TestConnector(server, "/other"))
        let wentOut = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Self.waitUntil(server, sees: "/other")) }
        }
        #expect(wentOut)
        #expect(!other.isCompleted)
        release.signal()
        #expect(String(decoding: try await first.value, as: UTF8.self) == "/first")
        #expect(String(decoding: try await other.value, as: UTF8.self) == "/other")
    }

    /// A released client's loop stops, and both its threads end: the loop, which each thread
    /// holds while it runs, goes.
    @Test func aReleasedClientsLoopThreadsEnd() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        weak var loop: TransferLoop?
        do {
            let client = Self.client()
            loop = try #require(client.transport as? CurlTransport).loop
            _ = try await client.request(TestConnector(server, "/once")).value
        }
        for _ in 0..<500 where loop != nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(loop == nil)
    }
}
