import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

@Suite("Promise and observe")
struct PromiseTests {
    @Test func completesExactlyOnce() throws {
        let promise = Promise<Int>()
        let seen = Recorder<Int>()
        promise.future.observe { seen.append((try? $0.get()) ?? -1) }
        #expect(promise.succeed(1))
        #expect(!promise.succeed(2))
        #expect(!promise.fail(TestError()))
        #expect(seen.all == [1])
        #expect(try promise.future.result?.get() == 1)
    }

    @Test func observersRunInOrderBeforeAndAfterCompletion() {
        let promise = Promise<String>()
        let seen = Recorder<String>()
        for name in ["a", "b", "c"] {
            promise.future.observe { _ in seen.append(name) }
        }
        #expect(seen.all.isEmpty)
        promise.succeed("x")
        promise.future.observe { _ in seen.append("d") }
        promise.future.observe { _ in seen.append("e") }
        #expect(seen.all == ["a", "b", "c", "d", "e"])
    }

    @Test func observersRunOnTheCompletingThreadByDefault() async {
        let promise = Promise<Int>()
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "completer")
        queue.setSpecific(key: key, value: "completer")
        let where_ = await withCheckedContinuation { continuation in
            promise.future.observe { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
            queue.async { promise.succeed(1) }
        }
        #expect(where_ == "completer")
    }

    @Test func observeOnAQueueRunsThere() async {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "observer")
        queue.setSpecific(key: key, value: "observer")
        let where_ = await withCheckedContinuation { continuation in
            Future(value: 1).observe(on: queue) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }
        }
        #expect(where_ == "observer")
    }

    @Test func successAndFailureConveniences() {
        let seen = Recorder<String>()
        Future(value: 5)
            .onSuccess { seen.append("value \($0)") }
            .onFailure { _ in seen.append("unexpected") }
        Future<Int>(error: TestError(code: 7))
            .onSuccess { _ in seen.append("unexpected") }
            .onFailure { seen.append("error \(($0 as? TestError)?.code ?? 0)") }
        #expect(seen.all == ["value 5", "error 7"])
    }

    @Test func constructors() async throws {
        #expect(try Future(value: 3).result?.get() == 3)
        #expect(Future<Int>(error: TestError()).result.map { (try? $0.get()) == nil } == true)
        let later = Future<Int> { promise in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { promise.succeed(9) }
        }
        #expect(try await later.value == 9)
        let thrown = Future<Int> { _ in throw TestError(code: 3) }
        #expect(await error(of: thrown) as? TestError == TestError(code: 3))
    }

    @Test func abandonedPromiseFailsItsFuture() async {
        var promise: Promise<Int>? = Promise()
        let future = promise!.future
        promise = nil
        #expect(await error(of: future) as? FutureError == .promiseAbandoned)
    }

    @Test func longChainsRunWithoutRecursion() throws {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<100_000 { future = future.map { $0 + 1 } }
        let last = future
        promise.succeed(0)
        #expect(try last.result?.get() == 100_000)
    }

    @Test func aStepWithSeveralFollowersRunsThemDepthFirstInOrder() {
        let promise = Promise<Int>()
        let seen = Recorder<String>()
        let first = promise.future.map { $0 + 1 }
        first.observe { seen.append("x\((try? $0.get()) ?? -1)") }
        let second = first.map { $0 * 10 }
        first.observe { seen.append("y\((try? $0.get()) ?? -1)") }
        second.observe { seen.append("second\((try? $0.get()) ?? -1)") }
        second.observe { _ in seen.append("second again") }
        first.observe { _ in seen.append("z") }
        promise.succeed(1)
        #expect(seen.all == ["x2", "second20", "second again", "y2", "z"])
        // Added after completion: they run at once, and nothing runs twice.
        first.observe { _ in seen.append("late") }
        #expect(seen.all == ["x2", "second20", "second again", "y2", "z", "late"])
    }

    @Test func aCancelledFutureWithSeveralFollowersRunsEachOnce() {
        let promise = Promise<Int>()
        let step = promise.future.map { $0 + 1 }
        let failures = Counter()
        for _ in 0..<3 { step.observe { if case .failure = $0 { failures.increment() } } }
        #expect(step.cancel())
        #expect(failures.current == 3)
        #expect(!promise.succeed(1))
        #expect(failures.current == 3)
    }

    @Test func longChainsWithTwoFollowersAtEveryStepRunWithoutRecursion() throws {
        let promise = Promise<Int>()
        let observed = Counter()
        var future = promise.future
        for _ in 0..<100_000 {
            let next = future.map { $0 + 1 }
            future.observe { _ in observed.increment() }
            future = next
        }
        let last = future
        promise.succeed(0)
        #expect(try last.result?.get() == 100_000)
        #expect(observed.current == 100_000)
    }

    @Test func longFlatMapChainsRunWithoutRecursion() throws {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<100_000 { future = future.flatMap { Future(value: $0 + 1) } }
        let last = future
        promise.succeed(0)
        #expect(try last.result?.get() == 100_000)
    }
}
