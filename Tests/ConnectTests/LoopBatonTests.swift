import ConnectFutures
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing

@testable import Connect

/// `LoopBaton`'s turns, with threads of the test's own and no sockets.
@Suite("Loop baton", .timeLimit(.minutes(1)))
struct LoopBatonTests {
    /// `lead()` called on a thread of its own.
    final class Attempt: Sendable {
        let done = DispatchSemaphore(value: 0)
        private let led = Locked<Bool?>(nil)
        var result: Bool? { led.withLock { $0 } }

        /// `waiting`: returns once the thread waits to lead, which it must (another leads).
        init(_ baton: LoopBaton, waiting: Bool = true) {
            _ = startThread(named: "baton-test") { [self] in
                let outcome = baton.lead()
                led.withLock { $0 = outcome }
                done.signal()
            }
            while waiting, !baton.hasStandby { usleep(100) }
        }
    }

    @Test func theFirstThreadLeadsAndTheOneBackFromCallbacksLeadsAgain() {
        let baton = LoopBaton()
        #expect(baton.lead())
        baton.handOverToComplete(commandsWait: false)
        #expect(baton.lead())
        baton.stop()
        #expect(!baton.lead())
    }

    @Test func theStandbyWaitsWhileTheLeaderCompletesCallbacksWithNothingToDo() {
        let baton = LoopBaton()
        #expect(baton.lead())
        let standby = Attempt(baton)
        baton.handOverToComplete(commandsWait: false)
        // Ten times the patience: the standby looked and found no command.
        #expect(standby.done.wait(timeout: .now() + .milliseconds(10)) == .timedOut)
        #expect(baton.lead())
        baton.stop()
        standby.done.wait()
        #expect(standby.result == false)
    }

    @Test func commandsQueuedBeforeTheHandOverWakeTheStandby() {
        let baton = LoopBaton()
        #expect(baton.lead())
        let standby = Attempt(baton)
        baton.handOverToComplete(commandsWait: true)
        standby.done.wait()
        #expect(standby.result == true)
        baton.stop()
    }

    @Test func aCommandFromAnotherThreadWakesTheStandbyAtOnce() {
        let baton = LoopBaton()
        #expect(baton.lead())
        let standby = Attempt(baton)
        baton.handOverToComplete(commandsWait: false)
        baton.commandWaits(fromTheCompletingThread: false)
        standby.done.wait()
        #expect(standby.result == true)
        baton.stop()
    }

    /// A command queued between the loop's last look at its inbox and the hand-over: the
    /// hand-over wakes the standby for it.
    @Test func aCommandJustBeforeTheHandOverWakesTheStandbyAtIt() {
        let baton = LoopBaton()
        #expect(baton.lead())
        let standby = Attempt(baton)
        baton.commandWaits(fromTheCompletingThread: false)
        #expect(standby.done.wait(timeout: .now() + .milliseconds(10)) == .timedOut)
        baton.handOverToComplete(commandsWait: false)
        standby.done.wait()
        #expect(standby.result == true)
        baton.stop()
    }

    /// A command from the callbacks is left for the thread running them, unless they still run
    /// when the standby looks again, about `patience` later.
    @Test func aCommandFromTheCallbacksIsTakenByTheStandbyIfTheyRunOn() {
        let baton = LoopBaton()
        #expect(baton.lead())
        let standby = Attempt(baton)
        baton.handOverToComplete(commandsWait: false)
        baton.commandWaits(fromTheCompletingThread: true)
        standby.done.wait()
        #expect(standby.result == true)
        // The thread back from its callbacks now waits its turn.
        let back = Attempt(baton)
        #expect(back.done.wait(timeout: .now() + .milliseconds(10)) == .timedOut)
        baton.handOverToComplete(commandsWait: true)
        back.done.wait()
        #expect(back.result == true)
        baton.stop()
    }
}
