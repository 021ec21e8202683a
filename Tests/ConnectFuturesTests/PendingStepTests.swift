import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

/// A transform that doubles its input, counting its runs; fails on negative input, and hands
/// back `inner` instead of a value when one is set.
private final class Doubling: ValueTransform, Sendable {
    let runs = Counter()
    let inner: Future<Int>?

    init(inner: Future<Int>? = nil) {
        self.inner = inner
    }

    func proceed(with input: Int) throws -> ValueOrFuture<Int> {
        runs.increment()
        if input < 0 { throw TestError(code: input) }
        if let inner { return .future(inner) }
        return .value(input * 2)
    }
}

/// A producer that records the cancellations it is told of.
private final class CancellationRecorder: PromiseCancellationObserver, Sendable {
    let cancellations = Counter()
    func promiseWasCancelled() { cancellations.increment() }
}

@Suite("PendingStep")
struct PendingStepTests {
    @Test(
        arguments: [
            (Result<Int, any Error>.success(21), 42, 1),
            (.failure(TestError(code: 7)), nil, 0),  // a failure passes through, the transform never runs
            (.success(-3), nil, 1)  // the transform's throw fails the future
        ] as [(Result<Int, any Error>, Int?, Int)])
    func receiveRunsTheStepHere(input: Result<Int, any Error>, expected: Int?, runs: Int) throws {
        let transform = Doubling()
        let (producer, future) = PendingStep<Int>.making(context: nil, transform: transform)
        let observed = Recorder<Result<Int, any Error>>()
        future.observe { observed.append($0) }
        #expect(!producer.isCompleted)
        producer.receive(input)
        // Ran on this thread, before `receive` returned.
        let result = try #require(observed.all.first)
        #expect(producer.isCompleted)
        #expect(transform.runs.current == runs)
        switch (result, expected) {
        case (.success(let value), let expected?): #expect(value == expected)
        case (.failure, nil): break
        default: Issue.record("got \(result), expected \(String(describing: expected))")
        }
    }

    @Test func passThroughGivesTheInputAsItCame() throws {
        let (producer, future) = PendingStep<String>.making(context: nil, transform: PassThrough<String>())
        producer.receive(.success("as it came"))
        #expect(try future.result?.get() == "as it came")
    }

    @Test func aFutureFromTheTransformIsFollowedPendingOrCompleted() throws {
        let inner = Promise<Int>()
        let (pendingProducer, followsPending) = PendingStep<Int>.making(
            context: nil, transform: Doubling(inner: inner.future))
        pendingProducer.receive(.success(1))
        #expect(followsPending.result == nil)
        inner.succeed(99)
        #expect(try followsPending.result?.get() == 99)

        let (completedProducer, followsCompleted) = PendingStep<Int>.making(
            context: nil, transform: Doubling(inner: Future(value: 5)))
        let observed = Recorder<Int>()
        followsCompleted.observe { if let value = try? $0.get() { observed.append(value) } }
        completedProducer.receive(.success(1))
        #expect(observed.all == [5])
    }

    @Test func onlyTheFirstInputCountsAndNothingRunsAfterACancel() throws {
        let transform = Doubling()
        let (producer, future) = PendingStep<Int>.making(context: nil, transform: transform)
        producer.receive(.success(1))
        producer.receive(.success(50))
        #expect(try future.result?.get() == 2)
        #expect(transform.runs.current == 1)

        let cancelled = Doubling()
        let (cancelledProducer, cancelledFuture) = PendingStep<Int>.making(context: nil, transform: cancelled)
        cancelledFuture.cancel()
        cancelledProducer.receive(.success(1))
        #expect(cancelled.runs.current == 0)
        #expect(cancelledFuture.result.map { if case .failure = $0 { true } else { false } } == true)
    }

    @Test func aCancelOfTheFutureReachesTheProducerOnce() {
        let (producer, future) = PendingStep<Int>.making(context: nil, transform: PassThrough<Int>())
        let recorder = CancellationRecorder()
        producer.onCancel(notifying: recorder)
        future.cancel()
        future.cancel()
        #expect(recorder.cancellations.current == 1)
        #expect(producer.isCompleted)
    }

    @Test func anAbandonedStepFailsOnItsCallbackQueue() async {
        let queue = DispatchQueue(label: "PendingStepTests.callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let (producer, future) = PendingStep<Int>.making(
            context: FutureContext(callbackQueue: queue), transform: Doubling())
        let outcome: (onQueue: Bool, abandoned: Bool) = await withCheckedContinuation { continuation in
            future.observe { result in
                let abandoned: Bool
                if case .failure(let error) = result, case .promiseAbandoned? = error as? FutureError {
                    abandoned = true
                } else {
                    abandoned = false
                }
                continuation.resume(returning: (DispatchQueue.getSpecific(key: key) == true, abandoned))
            }
            producer.abandonIfPending()
        }
        #expect(outcome.onQueue)
        #expect(outcome.abandoned)
        // Completed: nothing more to abandon.
        producer.abandonIfPending()
    }
}
