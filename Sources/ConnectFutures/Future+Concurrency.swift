extension Future {
    /// The value, for `async` code: `let todo = try await future.value`.
    ///
    /// On a future that has already completed, this returns at once: no suspension, no
    /// continuation, no allocation. On a pending one the task suspends until the future completes,
    /// and cancelling the awaiting task cancels the future (and so the work behind it).
    @inlinable
    public var value: Value {
        get async throws {
            if let result = storage.completedResult { return try result.get() }
            return try await valueOfPending()
        }
    }

    /// The slow path of `value`, kept out of line so that the fast path inlines into callers.
    ///
    /// A task that prefers no executor waits preferring the chain's awaiting executor, if its
    /// producer gave one (``AwaitingExecutor``): the thread that completes the future may then
    /// continue the task itself, where Swift's pool would have a thread of its own woken for it.
    @usableFromInline
    func valueOfPending() async throws -> Value {
        let completion = AwaitedCompletion()
        // Observed before the hop onto an awaiting executor, which may wait for a thread of
        // Swift's pool: a completion that comes meanwhile is noted, and the task takes the result
        // there without suspending. The observer touches no type generic over `Value`, and is
        // `completion` itself with a closure that captures nothing: no context to allocate.
        storage.append(
            FutureContinuation(target: completion) { completion, _ in
                (completion as! AwaitedCompletion).complete()
                return nil
            })
        await withTaskCancellationHandler {
            if let executor = storage.context?.awaitingExecutor, !Self.currentTaskPrefersAnExecutor {
                // Only the suspension inside the preference: every hop a task makes while it
                // prefers an executor it is not running on is a job enqueued on that executor
                // (see `AwaitingTaskExecutor`), so each function entered or returned from in
                // here would cost one.
                await withTaskExecutorPreference(executor) {
                    await withUnsafeContinuation { completion.resume($0) }
                }
            } else {
                await withUnsafeContinuation { completion.resume($0) }
            }
        } onCancel: {
            cancel()
        }
        // The future completed before `completion` resumed the task.
        return try storage.valueOfCompleted()
    }

    /// Whether the calling task runs with an executor preference of its own, which awaiting keeps.
    private static var currentTaskPrefersAnExecutor: Bool {
        withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
    }

    /// A future of an `async` operation, run in a new task; cancelling the future cancels the task.
    ///
    /// ```swift
    /// let token = Future { try await keychain.loadToken() }
    /// ```
    public init(operation: @escaping @Sendable () async throws -> Value) {
        let promise = Promise<Value>()
        storage = promise.storage
        let task = Task {
            do {
                promise.succeed(try await operation())
            } catch {
                promise.fail(error)
            }
        }
        promise.onCancel { task.cancel() }
    }
}
