import ConnectFutures

/// The executor a task prefers while it awaits one of Connect's futures (`value`), so that the
/// thread that completes the future continues the task itself.
///
/// Without it, a completion resumes the awaiting task on Swift's global pool, which wakes a
/// thread for most of them: with many tasks awaiting, a thread wakeup (and later a sleep) per
/// response that a callback (`observe`) does not pay. Preferring this executor, a task resumed by
/// a completion in a ``CompletionDrain`` continues on the drain's thread once the completions are
/// done, off the callback queue, as the pool would run it: a loop thread that completed what it
/// received itself, or the pool thread that ran the drain. The request the task sends next and
/// the hop onto this executor as it awaits again cost no thread a wakeup either.
///
/// Anywhere else (a completion outside a drain, such as a cancellation, or a task starting to
/// wait), the job goes to Swift's global pool at once, where it would have gone without a
/// preference.
final class AwaitingTaskExecutor: AwaitingExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let drain = CompletionDrain.current {
            drain.continueAfterwards(job)
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }
}
