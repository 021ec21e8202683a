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
    /// producer gave one and expects to continue the task (``AwaitingExecutor``): the thread
    /// that completes the future may then continue the task itself, where Swift's pool would
    /// have a thread of its own woken for it.
    @usableFromInline
    func valueOfPending() async throws -> Value {
        if let executor = storage.context?.awaitingExecutor, !Self.currentTaskPrefersAnExecutor,
            executor.beginsAwait()
        {
            defer { executor.endsAwait() }
            // Observed before the hop onto the executor, which may wait for a thread of Swift's
            // pool: a result that comes meanwhile is waiting when the task gets there, and the
            // task takes it without suspending.
            let awaited = AwaitedResult<Value>()
            observe { awaited.deliver($0) }
            return try await withTaskExecutorPreference(executor) {
                try await suspend { awaited.resume($0) }
            }
        }
        // Unsafe, not checked: `observe` calls its callback exactly once.
        return try await suspend { continuation in observe { continuation.resume(with: $0) } }
    }

    /// Whether the calling task runs with an executor preference of its own, which awaiting keeps.
    private static var currentTaskPrefersAnExecutor: Bool {
        withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
    }

    /// Suspends until the continuation `start` is given is resumed with the future's result;
    /// cancelling the task meanwhile cancels the future.
    private func suspend(until start: (UnsafeContinuation<Value, any Error>) -> Void) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation(start)
        } onCancel: {
            cancel()
        }
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
