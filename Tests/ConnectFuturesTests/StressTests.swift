import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

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
