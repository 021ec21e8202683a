import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

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

    @Test func aValueOrFutureFlatMapRunsOnTheCallbackQueue() async throws {
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
