/// An executor a producer offers to the tasks that await its futures (`value`, see
/// ``FutureContext``): one that may continue a task on the thread that completes the future
/// instead of waking a thread of Swift's pool for it. A task that prefers no executor of its own
/// prefers this one while it waits.
package protocol AwaitingExecutor: TaskExecutor {}
