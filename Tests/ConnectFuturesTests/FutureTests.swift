import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

struct TestError: Error, Equatable {
    var code = 1
}

/// A thread-safe log of events, for asserting order and counts.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// A thread-safe counter that `#expect` can read.
final class Counter: Sendable {
    private let value = Locked(0)
    @discardableResult func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
    var current: Int { value.withLock { $0 } }
}

/// Waits for a future's result without `async` helpers under test.
func outcome<Value>(_ future: Future<Value>) async -> Result<Value, any Error> {
    await withCheckedContinuation { continuation in
        future.observe { continuation.resume(returning: $0) }
    }
}

func error<Value>(of future: Future<Value>) async -> (any Error)? {
    if case .failure(let error) = await outcome(future) { return error }
    return nil
}

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

@Suite("Operators")
struct OperatorTests {
    @Test func mapOnSuccessAndFailure() async throws {
        #expect(try await Future(value: 2).map { $0 * 10 }.value == 20)
        let failed = Future<Int>(error: TestError(code: 2)).map { $0 * 10 }
        #expect(await error(of: failed) as? TestError == TestError(code: 2))
        let pending = Promise<Int>()
        let mapped = pending.future.map { "\($0)" }
        pending.succeed(4)
        #expect(try await mapped.value == "4")
    }

    @Test func throwingMapFails() async {
        let failed = Future(value: 1).map { _ -> Int in throw TestError(code: 5) }
        #expect(await error(of: failed) as? TestError == TestError(code: 5))
        let pending = Promise<Int>()
        let later = pending.future.map { _ -> Int in throw TestError(code: 6) }
        pending.succeed(1)
        #expect(await error(of: later) as? TestError == TestError(code: 6))
    }

    @Test func flatMapOnSuccessFailureAndThrow() async throws {
        let pending = Promise<Int>()
        let inner = Promise<String>()
        let chained = pending.future.flatMap { value in inner.future.map { "\(value)\($0)" } }
        pending.succeed(1)
        #expect(!chained.isCompleted)
        inner.succeed("a")
        #expect(try await chained.value == "1a")

        let failed = Future<Int>(error: TestError(code: 8)).flatMap { Future(value: $0) }
        #expect(await error(of: failed) as? TestError == TestError(code: 8))
        let thrown = Future(value: 1).flatMap { _ -> Future<Int> in throw TestError(code: 9) }
        #expect(await error(of: thrown) as? TestError == TestError(code: 9))
        let innerFails = Future(value: 1).flatMap { _ in Future<Int>(error: TestError(code: 10)) }
        #expect(await error(of: innerFails) as? TestError == TestError(code: 10))
    }

    /// `flatMap(valueOrFuture:)` (Connect's redirect step), on a source that is pending or
    /// already complete: a value now, a future, a failure passed through, a throw.
    @Test(arguments: [false, true])
    func flatMapToAValueOrAFuture(sourceIsPending: Bool) async throws {
        func source(_ result: Result<Int, any Error>) -> (Future<Int>, complete: () -> Void) {
            guard sourceIsPending else { return (Future(result: result), {}) }
            let promise = Promise<Int>()
            return (promise.future, { promise.complete(result) })
        }
        let (now, completeNow) = source(.success(1))
        let valueNow = now.flatMap(valueOrFuture: { ValueOrFuture.value("\($0)") })
        completeNow()
        #expect(try await valueNow.value == "1")

        let inner = Promise<String>()
        let (later, completeLater) = source(.success(2))
        let waiting = later.flatMap(valueOrFuture: { value in .future(inner.future.map { "\(value)\($0)" }) })
        completeLater()
        #expect(!waiting.isCompleted)
        inner.succeed("b")
        #expect(try await waiting.value == "2b")

        let (failing, completeFailing) = source(.failure(TestError(code: 11)))
        let failed = failing.flatMap(valueOrFuture: { ValueOrFuture.value($0) })
        completeFailing()
        #expect(await error(of: failed) as? TestError == TestError(code: 11))

        let (throwing, completeThrowing) = source(.success(3))
        let thrown = throwing.flatMap(valueOrFuture: { _ -> ValueOrFuture<Int> in throw TestError(code: 12) })
        completeThrowing()
        #expect(await error(of: thrown) as? TestError == TestError(code: 12))

        let (failingInner, completeFailingInner) = source(.success(4))
        let innerFailed = failingInner.flatMap(valueOrFuture: { _ in
            ValueOrFuture<Int>.future(Future(error: TestError(code: 13)))
        })
        completeFailingInner()
        #expect(await error(of: innerFailed) as? TestError == TestError(code: 13))
    }

    @Test func aValueOrFutureStepRunsOnTheCallbackQueue() async throws {
        let queue = DispatchQueue(label: "value-or-future")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let promise = Promise<Int>(callbackQueue: queue)
        let step = promise.future.flatMap(valueOrFuture: { value in
            ValueOrFuture.value(DispatchQueue.getSpecific(key: key) == true ? value : -1)
        })
        promise.succeed(5)
        #expect(try await step.value == 5)
    }

    @Test func mapErrorAndRecover() async throws {
        let renamed = Future<Int>(error: TestError(code: 1)).mapError { _ in TestError(code: 2) }
        #expect(await error(of: renamed) as? TestError == TestError(code: 2))
        #expect(try await Future(value: 1).mapError { _ in TestError(code: 2) }.value == 1)

        #expect(try await Future<Int>(error: TestError()).recover { _ in 42 }.value == 42)
        #expect(try await Future(value: 1).recover { _ in 42 }.value == 1)
        let rethrown = Future<Int>(error: TestError(code: 1)).recover { _ -> Int in throw TestError(code: 3) }
        #expect(await error(of: rethrown) as? TestError == TestError(code: 3))

        let pending = Promise<Int>()
        let fallback = pending.future.recover { _ in Future(value: 7).delay(.milliseconds(1)) }
        pending.fail(TestError())
        #expect(try await fallback.value == 7)
        #expect(try await Future(value: 1).recover { _ in Future(value: 7) }.value == 1)
    }

    @Test func alwaysRunsItsBodyBeforeAnythingChainedAfterIt() async throws {
        let recorder = Recorder<String>()
        #expect(
            try await Future(value: 1).always { _ in recorder.append("body") }.map { value -> Int in
                recorder.append("map")
                return value
            }.value == 1)
        #expect(recorder.all == ["body", "map"])

        // The source completes on another thread while the chain is built: a step attached
        // after that still waits for the body, which is held until then.
        let promise = Promise<Int>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = Recorder<String>()
        let logged = promise.future.always { _ in
            entered.signal()
            release.wait()
            ended.append("body")
        }
        DispatchQueue.global().async { promise.fail(TestError()) }
        entered.wait()
        let next = logged.map { $0 + 1 }
        next.observe { _ in ended.append("after") }
        release.signal()
        #expect(await error(of: next) as? TestError == TestError())
        #expect(ended.all == ["body", "after"])
    }

    @Test func zipTwoAndThree() async throws {
        let a = Promise<Int>()
        let b = Promise<String>()
        let both = a.future.zip(b.future)
        b.succeed("b")
        a.succeed(1)
        let pair = try await both.value
        #expect(pair.0 == 1 && pair.1 == "b")

        let triple = try await Future(value: 1).zip(Future(value: "2"), Future(value: 3.0)).value
        #expect(triple.0 == 1 && triple.1 == "2" && triple.2 == 3.0)

        // Fails as soon as either fails, without waiting for the other.
        let slow = Promise<Int>()
        let failing = slow.future.zip(Future<Int>(error: TestError(code: 4)))
        #expect(await error(of: failing) as? TestError == TestError(code: 4))
        slow.succeed(1)
    }

    @Test func whenAllKeepsOrderAndFailsFast() async throws {
        let promises = (0..<5).map { _ in Promise<Int>() }
        let all = Future.whenAll(promises.map(\.future))
        for index in [3, 1, 4, 0, 2] { promises[index].succeed(index * 10) }
        #expect(try await all.value == [0, 10, 20, 30, 40])

        #expect(try await Future<Int>.whenAll([]).value == [])

        let pending = Promise<Int>()
        let failing = Future.whenAll([pending.future, Future(error: TestError(code: 5))])
        #expect(await error(of: failing) as? TestError == TestError(code: 5))
        pending.succeed(1)
    }

    @Test func firstTakesTheEarliestAndCancelsTheRest() async throws {
        let slow = Promise<Int>()
        let fast = Promise<Int>()
        let winner = Future.first(of: [slow.future, fast.future])
        fast.succeed(2)
        #expect(try await winner.value == 2)
        #expect(slow.isCancelled)

        let failingFirst = Future.first(of: [Future<Int>(error: TestError(code: 1)), Promise<Int>().future])
        #expect(await error(of: failingFirst) as? TestError == TestError(code: 1))
        #expect(await error(of: Future<Int>.first(of: [])) as? FutureError == .noFutures)
    }

    @Test func timeoutFiresAndCancelsTheSource() async {
        let never = Promise<Int>()
        let timed = never.future.timeout(after: .milliseconds(20))
        #expect(await error(of: timed) as? FutureError == .timedOut(after: .milliseconds(20)))
        #expect(never.isCancelled)
    }

    @Test func timeoutPassesThroughAnEarlyResult() async throws {
        let promise = Promise<Int>()
        let timed = promise.future.timeout(after: .seconds(5))
        promise.succeed(3)
        #expect(try await timed.value == 3)
        let failed = Promise<Int>()
        let timedFailure = failed.future.timeout(after: .seconds(5))
        failed.fail(TestError(code: 2))
        #expect(await error(of: timedFailure) as? TestError == TestError(code: 2))
    }

    @Test func delayWaitsWithoutBlocking() async throws {
        let start = ContinuousClock.now
        let delayed = Future(value: 1).delay(.milliseconds(50))
        #expect(!delayed.isCompleted)
        #expect(try await delayed.value == 1)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        let failed = Future<Int>(error: TestError()).delay(.milliseconds(1))
        #expect(await error(of: failed) is TestError)
    }

    @Test func cancellingADelayFailsAtOnce() async {
        let delayed = Future(value: 1).delay(.seconds(30))
        delayed.cancel()
        #expect(await error(of: delayed) is CancellationError)
    }

    @Test func retryRunsUntilSuccessOrAttemptsRunOut() async throws {
        let calls = Counter()
        let succeeding = Future<Int>.retry(attempts: 5, delay: .milliseconds(1)) {
            let call = calls.increment()
            return call < 3 ? Future(error: TestError(code: call)) : Future(value: call)
        }
        #expect(try await succeeding.value == 3)
        #expect(calls.current == 3)

        let failures = Counter()
        let exhausted = Future<Int>.retry(attempts: 3) {
            Future(error: TestError(code: failures.increment()))
        }
        #expect(await error(of: exhausted) as? TestError == TestError(code: 3))

        let vetoed = Counter()
        let notRetried = Future<Int>.retry(attempts: 3, while: { _ in false }) {
            vetoed.increment()
            return Future(error: TestError())
        }
        _ = await outcome(notRetried)
        #expect(vetoed.current == 1)
    }

    @Test func cancellingARetryStopsIt() async {
        let attempts = Counter()
        let retried = Future<Int>.retry(attempts: 100, delay: .milliseconds(1)) {
            attempts.increment()
            return Promise<Int>().future.delay(.seconds(60))
        }
        retried.cancel()
        #expect(await error(of: retried) != nil)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(attempts.current == 1)
    }
}

struct Todo: Decodable, Sendable, Equatable {
    struct Tag: Decodable, Sendable, Equatable { let name: String }
    let id: Int
    let title: String
    let tags: [Tag]
}

@Suite("Decoding")
struct DecodingTests {
    @Test func decodesWithAnExplicitOrInferredType() async throws {
        let body = Data(#"{"id":1,"title":"Write tests","tags":[{"name":"a"}]}"#.utf8)
        let todo = try await Future(value: body).decoded(toType: Todo.self).value
        #expect(todo == Todo(id: 1, title: "Write tests", tags: [.init(name: "a")]))
        let inferred: Future<Todo> = Future(value: body).decoded()
        #expect(try await inferred.value.id == 1)
    }

    @Test func usesTheGivenDecoder() async throws {
        struct Item: Decodable, Sendable { let createdAt: Int }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let item = try await Future(value: Data(#"{"created_at":5}"#.utf8)).decoded(toType: Item.self, decoder: decoder)
            .value
        #expect(item.createdAt == 5)
    }

    @Test func failureNamesTheCodingPath() async {
        let body = Data(#"{"id":1,"title":"x","tags":[{"name":"a"},{"name":7}]}"#.utf8)
        let failure = await error(of: Future(value: body).decoded(toType: Todo.self)) as? DecodingFailure
        #expect(failure?.codingPath == "tags[1].name")
        #expect(failure?.typeName.hasSuffix("Todo") == true)
        #expect(failure?.description.contains("tags[1].name") == true)
        #expect(failure?.bodyPreview.hasPrefix(#"{"id":1"#) == true)
    }

    @Test func failureOnNonJSON() async {
        let failure = await error(of: Future(value: Data("<html>".utf8)).decoded(toType: Todo.self)) as? DecodingFailure
        #expect(failure?.codingPath == "")
        #expect(failure?.description.contains("<html>") == true)
        let missing =
            await error(of: Future(value: Data(#"{"id":1}"#.utf8)).decoded(toType: Todo.self)) as? DecodingFailure
        #expect(missing?.reason.contains("title") == true)
    }
}

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

    @Test func cancellingAValueOrFutureStepReachesTheSourceAndThenTheInnerFuture() async {
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
                try await Task.sleep(for: .seconds(30))
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

@Suite("Memory")
struct MemoryTests {
    final class Canary: Sendable {}

    @Test func aCompletedChainIsFreed() {
        weak var weakSource: Future<Int>.Storage?
        weak var weakEnd: Future<String>.Storage?
        weak var weakCanary: Canary?
        do {
            let promise = Promise<Int>()
            let canary = Canary()
            weakCanary = canary
            let end = promise.future.map { _ in canary }.flatMap { Future(value: $0) }.map { _ in "done" }
            end.observe { _ in _ = canary }
            weakSource = promise.storage
            weakEnd = end.storage
            promise.succeed(1)
        }
        #expect(weakSource == nil)
        #expect(weakEnd == nil)
        #expect(weakCanary == nil)
    }

    @Test func aFlatMapThatWaitedForItsInnerFutureIsFreed() {
        weak var weakInner: Future<Canary>.Storage?
        weak var weakEnd: Future<Canary>.Storage?
        weak var weakCanary: Canary?
        do {
            let source = Promise<Int>()
            let inner = Promise<Canary>()
            let end = source.future.flatMap { _ in inner.future }.mapError { $0 }
            let seen = Locked<Canary?>(nil)
            end.observe { result in seen.withLock { $0 = try? result.get() } }
            source.succeed(1)
            #expect(!end.isCompleted)
            let canary = Canary()
            weakCanary = canary
            inner.succeed(canary)
            #expect(seen.withLock { $0 } === canary)
            weakInner = inner.storage
            weakEnd = end.storage
        }
        #expect(weakInner == nil)
        #expect(weakEnd == nil)
        #expect(weakCanary == nil)
    }

    /// Nothing but the promise holds the chain: each step must stay alive while its own
    /// continuations run (a callback list does not retain its future), on a queue as well.
    @Test(arguments: [false, true])
    func aChainHeldOnlyByItsPromiseRunsAndIsFreed(onQueue: Bool) async {
        weak var weakEnd: Future<Int>.Storage?
        let seen = Recorder<Int>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let promise = Promise<Int>(callbackQueue: onQueue ? DispatchQueue(label: "chain") : nil)
            var end = promise.future
            for _ in 0..<100 { end = end.map { $0 + 1 } }
            // Three followers on one step: the list with more than one continuation.
            for offset in 0..<3 {
                end.map { $0 + offset }.observe { result in
                    seen.append(try! result.get())
                    if seen.all.count == 3 { done.resume() }
                }
            }
            weakEnd = end.storage
            end = Future(value: 0)
            DispatchQueue.global().async { promise.succeed(0) }
        }
        #expect(seen.all.sorted() == [100, 101, 102])
        // The queue's block may still be letting go of the last step.
        for _ in 0..<100 where weakEnd != nil { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(weakEnd == nil)
    }

    @Test func aPendingFutureHoldsNoResultAndACancelledOneItsError() {
        let promise = Promise<Int>()
        #expect(promise.future.result == nil)
        promise.future.cancel()
        guard case .failure(let error) = promise.future.result else {
            Issue.record("a cancelled future holds no failure")
            return
        }
        #expect(error is CancellationError)
    }

    @Test func anAbandonedPendingChainIsFreed() {
        weak var weakEnd: Future<Int>.Storage?
        weak var weakCanary: Canary?
        do {
            let promise = Promise<Int>()
            let canary = Canary()
            weakCanary = canary
            let end = promise.future.map { $0 }.map { value in
                _ = canary
                return value
            }
            end.observe { _ in _ = canary }
            weakEnd = end.storage
        }
        #expect(weakEnd == nil)
        #expect(weakCanary == nil)
    }
}

@Suite("Stress")
struct StressTests {
    /// 4 threads create, complete, observe and cancel 40,000 futures at once; every observer runs
    /// exactly once and each future ends exactly one way. (Sized so that under ThreadSanitizer it
    /// takes about a second: at 8 threads and 100,000 futures it held both cores for 10 s and
    /// starved the suites running beside it. `CONNECT_FULL_STRESS=1` runs that size, alone:
    /// `CONNECT_FULL_STRESS=1 swift test --sanitize=thread --filter StressTests`.)
    @Test func concurrentCompleteObserveCancel() async {
        let full = ProcessInfo.processInfo.environment["CONNECT_FULL_STRESS"] == "1"
        let total = full ? 100_000 : 40_000
        let threads = full ? 8 : 4
        let observed = Counter()
        let succeeded = Counter()
        let cancelled = Counter()
        let completionsWon = Counter()
        let cancelsWon = Counter()
        let promises = (0..<total).map { _ in Promise<Int>() }
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            Thread {
                for index in stride(from: thread, to: total, by: threads) {
                    let promise = promises[index]
                    let other = promises[(index + 1) % total]
                    promise.future.map { $0 + 1 }.observe { result in
                        observed.increment()
                        switch result {
                        case .success: succeeded.increment()
                        case .failure: cancelled.increment()
                        }
                    }
                    // Race a completion against a cancel from another thread's promise.
                    if promise.succeed(index) { completionsWon.increment() }
                    if other.future.cancel() { cancelsWon.increment() }
                }
                done.leave()
            }.start()
        }
        // Waiting without holding a cooperative thread: there may be as few as two, and the other
        // tests need them while these threads run (seconds, under ThreadSanitizer).
        await withCheckedContinuation { continuation in
            done.notify(queue: .global()) { continuation.resume() }
        }
        #expect(observed.current == total)
        #expect(succeeded.current == completionsWon.current)
        #expect(cancelled.current == cancelsWon.current)
        #expect(completionsWon.current + cancelsWon.current == total)
    }
}

@Suite("Context")
struct ContextTests {
    struct Wrapped: Error { let failure: DecodingFailure }

    static func queue(_ label: String) -> (DispatchQueue, DispatchSpecificKey<String>) {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
        return (queue, key)
    }

    @Test func everyCallbackRunsOnTheBoundQueue() async throws {
        let (queue, key) = Self.queue("bound")
        let promise = Promise<Int>(callbackQueue: queue)
        let seen = Recorder<String>()
        let mapped = promise.future.map { value -> Int in
            seen.append("map:\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")")
            return value + 1
        }
        mapped.observe { _ in seen.append("before:\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")") }
        promise.succeed(1)  // completed from this thread, not the queue
        #expect(try await mapped.value == 2)
        // Added after completion: still dispatched to the queue, not run here.
        await withCheckedContinuation { continuation in
            mapped.map { $0 }.observe { _ in
                seen.append("after:\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")")
                continuation.resume()
            }
        }
        #expect(seen.all == ["map:bound", "before:bound", "after:bound"])
    }

    @Test func deliveredMovesCallbacksToAnotherQueue() async {
        let (queue, key) = Self.queue("target")
        let label = await withCheckedContinuation { continuation in
            Future(value: 1).delivered(on: queue).observe { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }
        }
        #expect(label == "target")
        let bound = Promise<Int>(callbackQueue: queue).future
        #expect(bound.delivered(on: queue).storage === bound.storage)
    }

    @Test func decodingFailuresAreWrappedByTheContext() async {
        let context = FutureContext(decodingFailure: { Wrapped(failure: $0) })
        let promise = Promise<Data>(context: context)
        let decoded = promise.future.map { $0 }.decoded(toType: Todo.self)
        promise.succeed(Data("[]".utf8))
        let wrapped = await error(of: decoded) as? Wrapped
        #expect(wrapped?.failure.typeName.hasSuffix("Todo") == true)
    }

    @Test func theChainInheritsTheCancellationError() async {
        let context = FutureContext(cancellationError: TestError(code: 42))
        let promise = Promise<Int>(context: context)
        let end = promise.future.map { $0 }.flatMap { Future(value: $0) }
        end.cancel()
        #expect(await error(of: end) as? TestError == TestError(code: 42))
    }
}
