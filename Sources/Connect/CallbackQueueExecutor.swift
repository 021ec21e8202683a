import Dispatch

/// A task executor that runs tasks on a client's callback queue, where its futures complete.
///
/// A task that awaits a request already continues on the thread that completed the response,
/// without preferring anything, off the callback queue (see "Awaiting tasks" in the Performance
/// article). A task that prefers this executor continues on the callback queue instead, right
/// after the completion that resumed it: with a serial callback queue its code then never runs
/// beside the client's observers and future steps.
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.callbackQueue = DispatchQueue(label: "api")   // serial
/// let connect = Connect(configuration: configuration)
///
/// let todos = try await withTaskExecutorPreference(connect.callbackExecutor) {
///     var todos: [Todo] = []
///     for id in 1...10 {
///         todos.append(try await connect.request(TodoConnector.get(id: id)).decoded(toType: Todo.self).value)
///     }
///     return todos
/// }
/// ```
///
/// With the default callback queue, a concurrent global queue, the task still runs there, but
/// each step may continue on another of its threads, and most of the gain is lost. With
/// ``ConnectConfiguration/runsCallbacksOnTransferThread`` futures complete on the transfer
/// thread, not on the callback queue, and the task gains nothing from preferring it.
///
/// The callback queue's rule applies to the task's code: while it runs, no observer or future
/// step of that client runs on a serial callback queue. Keep the work between two awaits short,
/// and hand heavy work to a task of its own.
public final class CallbackQueueExecutor: TaskExecutor {
    /// The queue the tasks that prefer this executor run on.
    public let queue: DispatchQueue

    /// An executor that runs the tasks that prefer it on `queue`.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Runs `job` on ``queue``.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // Resumed by a completion in a drain on the queue (a loop thread's or a pool thread's,
        // see CompletionDrain): it continues there, after the completions.
        if let drain = CompletionDrain.current, drain.isOnQueue, drain.queue === queue {
            drain.add(job, on: executor)
            return
        }
        queue.async { job.runSynchronously(on: executor) }
    }
}
