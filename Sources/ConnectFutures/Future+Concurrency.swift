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
    @usableFromInline
    func valueOfPending() async throws -> Value {
        try await withTaskCancellationHandler {
            // Unsafe, not checked: `observe` calls its callback exactly once.
            try await withUnsafeThrowingContinuation { continuation in
                observe { continuation.resume(with: $0) }
            }
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
