import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

@Suite("Swift concurrency")
struct ConcurrencyTests {
    @Test func awaitValueAndError() async throws {
        #expect(try await Future(value: 1).value == 1)
        await #expect(throws: TestError.self) { try await Future<Int>(error: TestError()).value }
        let promise = Promise<Int>()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { promise.succeed(2) }
        #expect(try await promise.future.value == 2)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheFuture() async {
        let promise = Promise<Int>()
        let task = Task { try await promise.future.value }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let result = await task.result
        #expect(promise.isCancelled)
        #expect((try? result.get()) == nil)
    }

    @Test func futureFromAnAsyncClosure() async throws {
        let future = Future<Int> {
            try await Task.sleep(for: .milliseconds(1))
            return 5
        }
        #expect(try await future.value == 5)
        let failing = Future<Int> { throw TestError(code: 4) }
        #expect(await error(of: failing) as? TestError == TestError(code: 4))
    }

    @Test func cancellingAnAsyncFutureCancelsItsTask() async throws {
        let started = Promise<Void>()
        let sawCancellation = Promise<Bool>()
        let future = Future<Int> {
            started.succeed(())
            do {
                // Far longer than any wait for a thread of the cooperative pool: under
                // ThreadSanitizer with other suites running, the test's own continuation once
                // resumed 30 s after the task started, and a 30 s sleep ended before the cancel.
                try await Task.sleep(for: .seconds(3600))
                sawCancellation.succeed(false)
            } catch {
                sawCancellation.succeed(true)
            }
            return 1
        }
        _ = await outcome(started.future)
        future.cancel()
        #expect(try await sawCancellation.future.value == true)
    }

    // The awaiting executor's path (`AwaitedCompletion`): the completion can come before the
    // task reaches its continuation (during the hop onto the executor) or after; either way the
    // task gets the future's own result, once. Each test completes its future only after the
    // executor ran the task's first job (the hop, which ends with the task suspended), never after
    // a sleep: a busy machine can start the task later than any sleep, and a future that completed
    // first is returned by the fast path without a hop.

    @Test func awaitingThroughAnExecutorGetsTheValueWhicheverComesFirst() async throws {
        for completesDuringTheHop in [false, true] {
            let executor = RecordingAwaitingExecutor()
            let promise = Promise<String>(
                context: FutureContext(
                    callbackQueue: nil, cancellationError: nil, settings: [], awaitingExecutor: executor))
            if completesDuringTheHop {
                executor.beforeFirstJob = { promise.succeed("during the hop") }
            }
            let task = Task { try await promise.future.value }
            try await executor.firstJobRan.future.value
            promise.succeed("after the task waits")  // too late when it completed during the hop
            #expect(try await task.value == (completesDuringTheHop ? "during the hop" : "after the task waits"))
            #expect(executor.jobs >= 1)
        }
    }

    // An awaiting executor runs each job it is given as Swift's pool would, preferring no
    // executor; so while the task prefers that executor, each hop it makes (each function it
    // enters or returns to that may change executors) is one more job. Only the suspension itself
    // sits inside the preference, so that a wait costs a few: into it, the continuation, back
    // out (and a closure's entry in a build that does not inline it).
    @Test func aTaskThatWaitsHopsOntoTheAwaitingExecutorAtMostFourTimes() async throws {
        let executor = RecordingAwaitingExecutor()
        let promise = Promise<Int>(
            context: FutureContext(callbackQueue: nil, cancellationError: nil, settings: [], awaitingExecutor: executor)
        )
        let task = Task { try await promise.future.value }
        try await executor.firstJobRan.future.value
        promise.succeed(1)
        #expect(try await task.value == 1)
        #expect((1...4).contains(executor.jobs), "jobs: \(executor.jobs)")
    }

    @Test func awaitingThroughAnExecutorThrowsTheFuturesError() async throws {
        let executor = RecordingAwaitingExecutor()
        let promise = Promise<Int>(
            context: FutureContext(
                callbackQueue: DispatchQueue(label: "callbacks"), cancellationError: nil, settings: [],
                awaitingExecutor: executor))
        let task = Task { try await promise.future.value }
        try await executor.firstJobRan.future.value
        promise.fail(TestError(code: 7))
        await #expect(throws: TestError(code: 7)) { try await task.value }
        #expect(executor.jobs >= 1)
    }

    @Test func cancellingATaskAwaitingThroughAnExecutorCancelsTheFuture() async throws {
        let executor = RecordingAwaitingExecutor()
        let promise = Promise<Int>(
            context: FutureContext(
                callbackQueue: nil, cancellationError: TestError(code: 9), settings: [], awaitingExecutor: executor))
        let task = Task { try await promise.future.value }
        try await executor.firstJobRan.future.value
        task.cancel()
        let result = await task.result
        #expect(promise.isCancelled)
        #expect(throws: TestError(code: 9)) { try result.get() }
        #expect(executor.jobs >= 1)
    }

    @Test func aTaskWithAnExecutorOfItsOwnKeepsIt() async throws {
        let executor = RecordingAwaitingExecutor()
        let own = RecordingAwaitingExecutor()
        let promise = Promise<Int>(
            context: FutureContext(
                callbackQueue: nil, cancellationError: nil, settings: [], awaitingExecutor: executor))
        // The task's first job on its own executor ends with it waiting inside `value`.
        let task = Task { try await withTaskExecutorPreference(own) { try await promise.future.value } }
        try await own.firstJobRan.future.value
        promise.succeed(3)
        #expect(try await task.value == 3)
        #expect(executor.jobs == 0)
        #expect(own.jobs >= 2)
    }
}

/// An awaiting executor that runs jobs on libdispatch's pool and counts them; `beforeFirstJob`
/// runs before the first job it is given (the task's hop onto it) is enqueued, and `firstJobRan`
/// completes once that job has run.
private final class RecordingAwaitingExecutor: AwaitingExecutor, @unchecked Sendable {
    private let lock = NSLock()
    private var enqueued = 0
    var beforeFirstJob: (@Sendable () -> Void)?
    let firstJobRan = Promise<Void>()

    /// The jobs it was given: the hop of each task that waited preferring it, and each task's
    /// continuation after the future completed.
    var jobs: Int {
        lock.withLock { enqueued }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let (isFirst, first) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?) in
            enqueued += 1
            defer { beforeFirstJob = nil }
            return (enqueued == 1, beforeFirstJob)
        }
        first?()
        // Run as Connect's `AwaitingTaskExecutor` runs the jobs it continues: off the pool's own
        // queue, on a thread that then runs as the pool would, preferring no executor.
        let job = UnownedJob(job)
        let firstJobRan = self.firstJobRan
        DispatchQueue.global().async {
            job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
            if isFirst { firstJobRan.succeed(()) }
        }
    }
}
