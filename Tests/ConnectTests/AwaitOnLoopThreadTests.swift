import ConnectFutures
import ConnectTestServer
import Dispatch
import Foundation
import Testing

@testable import Connect

/// A task awaiting one request after another (`value`) continues on the loop thread that
/// completed each (`AwaitingTaskExecutor`), as an observer does, and the app's code running there
/// never leaves the loop without a thread to lead it.
@Suite("Awaiting tasks continued by the loop's own thread", .timeLimit(.minutes(2)))
struct AwaitOnLoopThreadTests {
    /// A client with the default callback queue and the loop that carries its requests.
    static func client() throws -> (Connect, TransferLoop) {
        let client = Connect()
        return (client, try #require(client.transport as? CurlTransport).loop)
    }

    /// Blocks the calling thread until `semaphore` is signalled: the app's code holding its
    /// thread for as long as it likes.
    static func block(on semaphore: DispatchSemaphore) {
        semaphore.wait()
    }

    /// Runs `step`, which awaits, five times in a row, round after round, until a round continued on the
    /// loop thread at least four times, for up to a minute; the most of any round.
    ///
    /// Rounds, not one count: a task starts to wait by hopping onto the awaiting executor
    /// through Swift's pool, and while the pool is saturated (by other suites' tasks) the
    /// response can come first; the task then takes it on the pool without suspending.
    static func mostOnTheLoopThread(of loop: TransferLoop, _ step: () async throws -> Void) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        var most = 0
        repeat {
            var onLoopThread = 0
            for _ in 0..<5 {
                try await step()
                if loop.isLoopThread { onLoopThread += 1 }
            }
            most = max(most, onLoopThread)
        } while most < 4 && ContinuousClock.now < deadline
        return most
    }

    @Test func oneRequestAfterAnotherContinuesOnTheLoopThread() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let (client, loop) = try Self.client()
        var bodies: [String] = []
        let most = try await Self.mostOnTheLoopThread(of: loop) {
            let path = "/\(bodies.count)"
            bodies.append(String(decoding: try await client.request(TestConnector(server, path)).value, as: UTF8.self))
            #expect(!CallbackQueueMarker.isCurrent)
        }
        #expect(bodies == (0..<bodies.count).map { "/\($0)" })
        #expect(most >= 4)
    }

    @Test func decodedValuesAndFailuresContinueThereToo() async throws {
        let server = try TestServer { request in
            request.path == "/missing"
                ? TestResponse(status: 404, body: Data())
                : .json(#"{"userId":1,"id":1,"title":"t","completed":false}"#)
        }
        defer { server.shutdown() }
        let (client, loop) = try Self.client()
        let decoded = try await Self.mostOnTheLoopThread(of: loop) {
            let todo = try await client.request(TestConnector(server, "/todo")).decoded(toType: Todo.self).value
            #expect(todo.title == "t")
        }
        let failed = try await Self.mostOnTheLoopThread(of: loop) {
            await #expect(throws: ConnectError.self) {
                try await client.request(TestConnector(server, "/missing")).value
            }
        }
        #expect(decoded >= 4)
        #expect(failed >= 4)
    }

    /// Where the loop never completes futures itself, tasks wait without the executor.
    @Test func noAwaitingExecutorWhereTheLoopDoesNotComplete() {
        var onTransferThread = ConnectConfiguration()
        onTransferThread.runsCallbacksOnTransferThread = true
        var onMain = ConnectConfiguration()
        onMain.callbackQueue = .main
        #expect(FutureContext.connect(ConnectConfiguration()).awaitingExecutor != nil)
        #expect(FutureContext.connect(onTransferThread).awaitingExecutor == nil)
        #expect(FutureContext.connect(onMain).awaitingExecutor == nil)
        // The main queue runs its blocks on the main thread alone: a loop thread waiting there
        // would wait for the app. On Linux every `.main` is a new object around the one queue.
        #expect(!TransferLoop.completesOnLoopThread(callbackQueue: .main))
        #expect(TransferLoop.completesOnLoopThread(callbackQueue: .global()))
        #expect(TransferLoop.completesOnLoopThread(callbackQueue: DispatchQueue(label: "serial")))
        // A future moved to another queue completes there, never in a loop thread's drain.
        let moved = Future<Int>(result: .success(1), context: .connect(ConnectConfiguration()))
            .delivered(on: DispatchQueue(label: "elsewhere"))
        #expect(moved.context?.awaitingExecutor == nil)
    }

    /// Tasks awaiting side by side prefer the executor too: their responses are completed by a
    /// drain that a thread of Swift's pool runs on the callback queue, and each task continues
    /// on that thread afterwards, off the queue, instead of having a thread woken for it.
    ///
    /// Rounds, as in `mostOnTheLoopThread`: a response that comes while its task still hops onto
    /// the executor is taken there, outside any drain.
    @Test func tasksAwaitingSideBySideContinueInTheDrainThatCompletedThem() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let (client, _) = try Self.client()
        let deadline = ContinuousClock.now + .seconds(60)
        var most = 0
        repeat {
            let inDrain = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let body = try await client.request(TestConnector(server, "/\(index)")).value
                        #expect(String(decoding: body, as: UTF8.self) == "/\(index)")
                        return CompletionDrain.current?.isOnQueue == false && !CallbackQueueMarker.isCurrent
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            most = max(most, inDrain)
        } while most < 6 && ContinuousClock.now < deadline
        #expect(most >= 6)
    }

    /// Tasks whose code holds the loop thread they continued on may not keep the loop from
    /// carrying another request. The first holds a loop thread; the second's response then comes
    /// while no thread stands by, so it is completed on the callback queue and the second task
    /// continues on Swift's pool, not on the loop's last thread (where it would hold that one
    /// too). A task on the pool never blocks here: with two cores the pool has two threads.
    @Test func appCodeHoldingLoopThreadsNeverStallsTheLoop() async throws {
        let server = try TestServer { request in .text(request.path) }
        defer { server.shutdown() }
        let (client, loop) = try Self.client()
        _ = try await client.request(TestConnector(server, "/warm-up")).value
        let release = DispatchSemaphore(value: 0)
        var holders: [Task<Void, any Error>] = []
        var onLoopThread: [Bool] = []
        // One after the other, each awaiting alone, as a task offered the executor does.
        for index in 0..<2 {
            let holding = AsyncStream<Bool>.makeStream()
            holders.append(
                Task.detached {
                    _ = try await client.request(TestConnector(server, "/holder-\(index)")).value
                    let isLoopThread = loop.isLoopThread
                    holding.continuation.yield(isLoopThread)
                    if isLoopThread { Self.block(on: release) }
                })
            for await isLoopThread in holding.stream {
                onLoopThread.append(isLoopThread)
                break
            }
        }
        // At most one of them holds a loop thread.
        #expect(onLoopThread.filter { $0 }.count <= 1)
        let third = try await client.request(TestConnector(server, "/third")).value
        #expect(String(decoding: third, as: UTF8.self) == "/third")
        release.signal()
        release.signal()
        for holder in holders { try await holder.value }
    }
}
