/// An executor a producer offers to the tasks that await its futures (`value`, see
/// ``FutureContext``): one that may continue a task on the thread that completes the future
/// instead of waking a thread of Swift's pool for it.
///
/// Preferring an executor costs a hop onto it when the task starts to wait; the producer says
/// each time whether the hop is likely to pay (``beginsAwait()``).
package protocol AwaitingExecutor: TaskExecutor {
    /// Whether a task that starts to await now should prefer this executor until the future
    /// completes; when `true`, ``endsAwait()`` follows once the task has its value.
    func beginsAwait() -> Bool

    /// Ends an await that ``beginsAwait()`` accepted.
    func endsAwait()
}
