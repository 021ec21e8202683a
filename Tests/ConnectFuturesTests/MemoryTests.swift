import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

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
