import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

@Suite("Cancellation")
struct CancellationTests {
    @Test func cancelFailsTheFutureAndRunsTheHandlerOnce() async {
        let promise = Promise<Int>()
        let handled = Counter()
        promise.onCancel { handled.increment() }
        #expect(promise.future.cancel())
        #expect(!promise.future.cancel())
        #expect(!promise.succeed(1))
        #expect(handled.current == 1)
        #expect(promise.isCancelled)
        #expect(await error(of: promise.future) is CancellationError)
    }

    @Test func cancelAfterCompletionDoesNothing() {
        let promise = Promise<Int>()
        promise.onCancel { Issue.record("handler must not run") }
        promise.succeed(1)
        #expect(!promise.future.cancel())
        #expect(!promise.isCancelled)
    }

    @Test func producerChoosesTheCancellationError() async {
        let promise = Promise<Int>(cancellationError: TestError(code: 99))
        let mapped = promise.future.map { $0 + 1 }
        mapped.cancel()
        #expect(await error(of: mapped) as? TestError == TestError(code: 99))
    }

    @Test func aLateHandlerStillRuns() {
        let promise = Promise<Int>()
        promise.future.cancel()
        let handled = Counter()
        promise.onCancel { handled.increment() }
        #expect(handled.current == 1)
    }

    @Test func cancellingADerivedFutureReachesTheSource() async {
        let promise = Promise<Int>()
        let derived = promise.future.map { $0 + 1 }.map { "\($0)" }
        derived.cancel()
        #expect(promise.isCancelled)
        #expect(await error(of: derived) is CancellationError)
    }

    @Test func cancellingOneChainOfASharedSourceCancelsTheOthers() async {
        // Decided semantics: cancellation travels to the source, so every chain on it ends.
        let promise = Promise<Int>()
        let first = promise.future.map { $0 }
        let second = promise.future.map { $0 * 2 }
        first.cancel()
        #expect(await error(of: second) is CancellationError)
    }

    @Test func cancellingAFlatMapReachesTheInnerFuture() async {
        let inner = Promise<Int>()
        let outer = Future(value: 1).delay(.milliseconds(1)).flatMap { _ in inner.future }
        _ = await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) { continuation.resume() }
        }
        outer.cancel()
        #expect(inner.isCancelled)
    }

    @Test func cancellingAValueOrFutureFlatMapReachesTheSourceAndThenTheInnerFuture() async {
        let source = Promise<Int>()
        let before = source.future.flatMap(valueOrFuture: { ValueOrFuture.value($0) })
        before.cancel()
        #expect(source.isCancelled)

        let inner = Promise<Int>()
        let after = Future(value: 1).delay(.milliseconds(1)).flatMap(valueOrFuture: { _ in .future(inner.future) })
        _ = await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) { continuation.resume() }
        }
        after.cancel()
        #expect(inner.isCancelled)
    }

    // A promise with both a handler and an upstream keeps them in one link; these cover each order.

    @Test func cancellingAPromiseCompletedWithAnotherCancelsTheOtherWithAHandlerSetFirst() async {
        let promise = Promise<Int>()
        let other = Promise<Int>()
        let handled = Counter()
        promise.onCancel { handled.increment() }
        promise.complete(with: other.future)
        #expect(promise.future.cancel())
        #expect(other.isCancelled)
        // The other's cancellation completed this promise, so it did not end by its own cancel.
        #expect(await error(of: promise.future) is CancellationError)
        #expect(handled.current == 0)
        #expect(!promise.isCancelled)
    }

    @Test func cancellingAPromiseCompletedWithAnotherCancelsTheOtherWithAHandlerSetAfter() async {
        let promise = Promise<Int>()
        let other = Promise<Int>(cancellationError: TestError(code: 7))
        promise.complete(with: other.future)
        promise.onCancel { Issue.record("the other's cancellation completes this promise first") }
        #expect(promise.future.cancel())
        #expect(other.isCancelled)
        #expect(await error(of: promise.future) as? TestError == TestError(code: 7))
    }

    @Test func theHandlerRunsWhenTheUpstreamCancellationArrivesLater() async {
        // The other future completes this promise on a queue that is held, so after cancelling
        // it this promise is still pending: it fails with its own error and runs its handler.
        let queue = DispatchQueue(label: "held")
        let other = Promise<Int>(callbackQueue: queue)
        let promise = Promise<Int>()
        let handled = Counter()
        promise.complete(with: other.future)
        promise.onCancel { handled.increment() }
        promise.onCancel { handled.increment() }  // replaces the first; the upstream stays
        queue.suspend()
        #expect(promise.future.cancel())
        queue.resume()
        #expect(other.isCancelled)
        #expect(promise.isCancelled)
        #expect(handled.current == 1)
        #expect(await error(of: promise.future) is CancellationError)
    }

    @Test func aPromiseCompletedWithAnotherStillCompletesAndDropsItsHandler() async throws {
        let promise = Promise<Int>()
        let other = Promise<Int>()
        promise.onCancel { Issue.record("handler must not run") }
        promise.complete(with: other.future)
        other.succeed(5)
        #expect(try await promise.future.value == 5)
        #expect(!promise.future.cancel())
    }

    @Test func cancellingAWhenAllCancelsEveryInput() {
        let promises = (0..<3).map { _ in Promise<Int>() }
        Future.whenAll(promises.map(\.future)).cancel()
        let allCancelled = promises.allSatisfy(\.isCancelled)
        #expect(allCancelled)
    }
}
