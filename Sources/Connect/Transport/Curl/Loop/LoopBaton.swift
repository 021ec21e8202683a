import ConnectFutures
import Dispatch

/// Which of the transfer loop's two threads drives libcurl: one leads, the other stands by.
///
/// When a pass of the loop finishes transfers while nothing else is in flight, the leading
/// thread completes them itself, on the callback queue, instead of waking a callback thread:
/// it hands the loop over (`handOverToComplete`) and takes it back afterwards (`lead`). A client
/// that sends one request after another then runs without a thread wakeup between a response and
/// the next request. The standby takes the loop over whenever something must not wait for those
/// callbacks: a command from another thread wakes it at once; a command from the callbacks
/// themselves (a request they start) is taken by the thread that ran them once they end, or by
/// the standby after at most about `patience` should they still run.
///
/// To see those commands without being woken for each, a standby that has seen a hand-over
/// since it last looked waits with a timeout of `patience`, then looks again; after a wait with
/// no hand-over it waits without a timeout, and the next command wakes it.
final class LoopBaton: Sendable {
    private struct State {
        var isLed = false
        var isStopped = false
        /// A thread waits to lead.
        var standbyWaits = false
        /// The waiting thread waits without a timeout: a command must wake it.
        var standbyWaitsIndefinitely = false
        /// A command waits while the loop is handed over to complete callbacks.
        var commandWaits = false
        /// Hand-overs to complete callbacks so far: a standby that sees none between two looks
        /// stops looking.
        var handOvers = 0

        /// Whether a thread waits to be signalled; it then no longer counts as waiting, so that
        /// it is signalled once.
        mutating func takeStandby() -> Bool {
            defer { standbyWaits = false }
            return standbyWaits
        }
    }

    private enum Turn {
        case lead, stop, lookAgainLater, waitToBeWoken
    }

    private let state = Locked<State>(State())
    private let standby = DispatchSemaphore(value: 0)
    /// How long a command from the callbacks may wait for them to end before the standby takes
    /// the loop over.
    static let patience = DispatchTimeInterval.milliseconds(1)

    /// Leads the loop: at once if no thread leads, otherwise when a command needs a leader the
    /// leading thread cannot be. Returns `false` once the loop has stopped.
    func lead() -> Bool {
        var isFirstLook = true
        var handOversSeen = -1
        while true {
            let turn = state.withLock { state -> Turn in
                if state.isStopped { return .stop }
                // The thread back from completing callbacks takes the free loop; a standby takes
                // it only for a command.
                if !state.isLed, isFirstLook || state.commandWaits {
                    state.isLed = true
                    state.commandWaits = false
                    // At most one thread waits: past its first look, that was this one.
                    if !isFirstLook { state.standbyWaits = false }
                    return .lead
                }
                state.standbyWaits = true
                state.standbyWaitsIndefinitely = state.handOvers == handOversSeen
                handOversSeen = state.handOvers
                return state.standbyWaitsIndefinitely ? .waitToBeWoken : .lookAgainLater
            }
            isFirstLook = false
            switch turn {
            case .lead: return true
            case .stop: return false
            case .lookAgainLater: _ = standby.wait(timeout: .now() + Self.patience)
            case .waitToBeWoken: standby.wait()
            }
        }
    }

    /// Whether a thread waits to lead.
    var hasStandby: Bool {
        state.withLock { $0.standbyWaits }
    }

    /// The leading thread stops leading to complete finished transfers' callbacks;
    /// `commandsWait`: commands from other threads are queued already.
    func handOverToComplete(commandsWait: Bool) {
        let wakes = state.withLock { state -> Bool in
            state.isLed = false
            state.handOvers &+= 1
            // A command may also have come between the loop's last look at its inbox and here.
            if commandsWait { state.commandWaits = true }
            return state.commandWaits && state.takeStandby()
        }
        if wakes { standby.signal() }
    }

    /// A command was queued while the loop was handed over: from the thread completing callbacks,
    /// the standby finds it when it next looks (or is woken now if it no longer looks); from any
    /// other thread, the standby is woken now.
    func commandWaits(fromTheCompletingThread: Bool) {
        let wakes = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.commandWaits = true
            // Still led: the hand-over about to happen sees the command.
            guard !state.isLed else { return false }
            guard !fromTheCompletingThread || state.standbyWaitsIndefinitely else { return false }
            return state.takeStandby()
        }
        if wakes { standby.signal() }
    }

    /// Ends the loop: no thread leads again.
    func stop() {
        let wakes = state.withLock { state -> Bool in
            state.isStopped = true
            return state.takeStandby()
        }
        if wakes { standby.signal() }
    }
}
