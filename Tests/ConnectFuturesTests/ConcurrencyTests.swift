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
}
