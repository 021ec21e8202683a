extension Future {
    /// The value, for `async` code: `let todo = try await future.value`.
    ///
    /// Cancelling the awaiting task cancels the future (and so the work behind it). On a future
    /// that has already completed, this returns without suspending.
    public var value: Value {
        get async throws {
            if let result = storage.completedResult { return try result.get() }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    observe { continuation.resume(with: $0) }
                }
            } onCancel: {
                cancel()
            }
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
