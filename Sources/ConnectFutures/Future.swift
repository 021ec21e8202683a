import Dispatch

/// A value that arrives later: the result of a request, a decode step, a timer.
///
/// Chain steps top-down and observe the end of the chain:
///
/// ```swift
/// fetchTodo(id: 123)                         // a Future<Data>
///     .decoded(toType: Todo.self)
///     .map { $0.title }
///     .observe { result in            // Result<String, Error>
///         print(result)
///     }
/// ```
///
/// ## Where callbacks run
/// A future made by a `Promise` with a `callbackQueue` runs all its observers and steps on that
/// queue, and so do the futures chained from it. Otherwise an observer or step added to a pending
/// future runs on the thread that completes it, and one added to a completed future runs at once,
/// on the thread that adds it. Nothing ever hops to the main queue implicitly. To choose per
/// observer, pass a queue: `observe(on: .main) { ... }`.
///
/// ## Cancellation
/// `cancel()` travels up the chain to its source: cancelling `fetchTodo(id: 123).decoded(...)`
/// cancels the fetch, whose producer stops its work (``Promise/onCancel(_:)``). When several chains
/// share one source, cancelling any of them cancels the source, so every chain that depends on it
/// fails with the cancellation error. A step whose source has already finished (a running `delay`,
/// an inner `flatMap` future that finished) fails on its own.
///
/// A `Future` is a cheap handle: copies refer to the same pending result.
public struct Future<Value: Sendable>: Sendable {
    @usableFromInline typealias Storage = FutureStorage<FutureSlot<Value>>

    @usableFromInline let storage: Storage

    @inlinable
    init(storage: Storage) {
        self.storage = storage
    }

    /// A future that has already succeeded with `value`.
    @inlinable
    public init(value: Value) {
        storage = Storage(result: .success(value))
    }

    /// A future that has already failed with `error`.
    @inlinable
    public init(error: any Error) {
        storage = Storage(result: .failure(error))
    }

    /// A future that has already completed with `result`.
    @inlinable
    public init(result: Result<Value, any Error>) {
        storage = Storage(result: result)
    }

    /// A future that has already completed with `result`, in a chain that follows `context`
    /// (its callbacks run on the context's queue, if it has one).
    public init(result: Result<Value, any Error>, context: FutureContext) {
        storage = Storage(result: result, context: context)
    }

    /// The settings this future's chain shares, if its producer gave any.
    public var context: FutureContext? { storage.context }

    /// The queue this future's callbacks run on, if it has one.
    public var callbackQueue: DispatchQueue? { storage.callbackQueue }

    /// This future, with its callbacks on `queue`: itself if it already runs them there,
    /// otherwise a future that completes on `queue` like this one. Cancelling it cancels this one.
    public func delivered(on queue: DispatchQueue) -> Future<Value> {
        if storage.callbackQueue === queue { return self }
        return following(storage.context?.delivering(on: queue) ?? FutureContext(callbackQueue: queue))
    }

    /// This future in a chain that follows `context`: itself if it already does, otherwise a
    /// future that completes like this one under `context`. Cancelling it cancels this one.
    public func following(_ context: FutureContext) -> Future<Value> {
        if storage.context === context { return self }
        let child = Storage(upstream: storage, context: context)
        storage.append { [storage] in
            child.completeAndRun(storage.resultOfCompleted)
            return nil
        }
        return Future(storage: child)
    }

    /// A future completed by the promise that `body` receives; `body` runs at once.
    ///
    /// ```swift
    /// let answer = Future<Int> { promise in
    ///     DispatchQueue.global().async { promise.succeed(42) }
    /// }
    /// ```
    /// If `body` throws, the future fails with that error.
    public init(_ body: (Promise<Value>) throws -> Void) {
        let promise = Promise<Value>()
        storage = promise.storage
        do {
            try body(promise)
        } catch {
            promise.fail(error)
        }
    }

    /// The result, if the future has completed.
    @inlinable
    public var result: Result<Value, any Error>? { storage.completedResult }

    /// `true` once the future has completed.
    @inlinable
    public var isCompleted: Bool { storage.completedResult != nil }

    /// Calls `callback` with the result, exactly once.
    ///
    /// Runs on the future's callback queue if it has one; otherwise on
    /// the thread that completes the future, or at once if it has already completed.
    @inlinable
    public func observe(_ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        if let result = storage.resultForInlineStep {
            callback(result)
            return
        }
        storage.append(
            FutureContinuation(target: nil) { _, source in
                callback(unsafeDowncast(source, to: Storage.self).resultOfCompleted)
                return nil
            })
    }

    /// Calls `callback` with the result, exactly once, on `queue`.
    public func observe(on queue: DispatchQueue, _ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        observe { result in queue.async { callback(result) } }
    }

    /// Calls `callback` with the value if the future succeeds; returns `self` for chaining.
    @discardableResult
    public func onSuccess(
        on queue: DispatchQueue? = nil, _ callback: @escaping @Sendable (Value) -> Void
    ) -> Future<Value> {
        observe(on: queue) { result in
            if case .success(let value) = result { callback(value) }
        }
        return self
    }

    /// Calls `callback` with the error if the future fails; returns `self` for chaining.
    @discardableResult
    public func onFailure(
        on queue: DispatchQueue? = nil, _ callback: @escaping @Sendable (any Error) -> Void
    ) -> Future<Value> {
        observe(on: queue) { result in
            if case .failure(let error) = result { callback(error) }
        }
        return self
    }

    /// Cancels the work this future waits for.
    ///
    /// The future fails with the source's cancellation error (`CancellationError()` unless the
    /// producer chose another, see ``FutureContext``), and the producer's `onCancel`
    /// handler runs. See "Cancellation" above for chains that share a source.
    /// - Returns: `false` if the future had already completed.
    @discardableResult
    public func cancel() -> Bool {
        storage.cancel()
    }

    private func observe(on queue: DispatchQueue?, _ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        if let queue {
            observe(on: queue, callback)
        } else {
            observe(callback)
        }
    }
}
