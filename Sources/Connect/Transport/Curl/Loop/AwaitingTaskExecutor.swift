import ConnectFutures
import Synchronization

/// The executor a task prefers while it awaits one of Connect's futures (`value`), so that a
/// loop thread that completes the future continues the task itself.
///
/// Without it, a completion resumes the awaiting task on Swift's global pool: a pool thread is
/// woken for it, and the request the task sends next wakes the loop thread in turn, two thread
/// wakeups a response that a callback (`observe`) does not pay. Preferring this executor, a task
/// resumed by a completion that a loop thread runs itself (``LoopThreadDrain``) continues on that
/// thread once the completions are done, off the callback queue, as the pool would run it; the
/// request it sends next is then taken by that same thread when it leads the loop again.
///
/// Anywhere else (a completion on a callback queue's own thread, a task starting to wait), the
/// job goes to Swift's global pool at once, where it would have gone without a preference.
///
/// A loop thread completes a transfer itself only when nothing else is in flight (see
/// `TransferLoop.drainsHere()`), so a task is offered this executor only while no other
/// task of the client awaits through it: with many requests in flight, the hop onto the executor
/// as the task starts to wait would be paid for nothing.
final class AwaitingTaskExecutor: AwaitingExecutor {
    /// The tasks awaiting with this executor preferred.
    private let awaiting = Atomic<Int>(0)

    func beginsAwait() -> Bool {
        guard awaiting.load(ordering: .relaxed) == 0 else { return false }
        awaiting.add(1, ordering: .relaxed)
        return true
    }

    func endsAwait() {
        awaiting.subtract(1, ordering: .relaxed)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let drain = LoopThreadDrain.current {
            drain.continueAfterwards(job)
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }
}
