extension Future {
    /// A future of `transform` applied to this future's value; errors pass through.
    ///
    /// If `transform` throws, the new future fails with that error.
    @inlinable
    public func map<NewValue: Sendable>(
        _ transform: @escaping @Sendable (Value) throws -> NewValue
    ) -> Future<NewValue> {
        if let result = storage.resultForInlineStep {
            return Future<NewValue>(result: result.flatMapThrowing(transform))
        }
        let step = MapStep(following: storage, transform: transform)
        step.attach(to: storage)
        return Future<NewValue>(storage: step)
    }

    /// A future of the future that `transform` returns for this future's value; errors pass
    /// through. Use it to run one asynchronous step after another.
    ///
    /// Cancelling the returned future cancels this one while it is pending, and the inner future
    /// once `transform` has returned it.
    @inlinable
    public func flatMap<NewValue: Sendable>(
        _ transform: @escaping @Sendable (Value) throws -> Future<NewValue>
    ) -> Future<NewValue> {
        if let result = storage.resultForInlineStep { return Self.flatMapStep(result, transform) }
        let step = FlatMapStep(following: storage, transform: transform)
        step.attach(to: storage)
        return Future<NewValue>(storage: step)
    }

    /// `flatMap` for a transform that usually has the new value at once: it returns
    /// `.value(...)` then, which costs no completed future, or `.future(...)` when it must wait.
    /// Same package only.
    @inlinable
    package func flatMap<NewValue: Sendable>(
        valueOrFuture transform: @escaping @Sendable (Value) throws -> ValueOrFuture<NewValue>
    ) -> Future<NewValue> {
        then(ClosureTransform(transform))
    }

    /// The future of `transform`'s work on this future's value: ``flatMap(valueOrFuture:)`` with
    /// the step's state held in the step, one allocation where a closure's context would be a
    /// second. Same package only.
    @inlinable
    package func then<Transform: ValueTransform>(_ transform: consuming Transform) -> Future<Transform.Output>
    where Transform.Input == Value {
        if let result = storage.resultForInlineStep {
            // Written out, as in `TransformStep`: a closure over the transform would copy it.
            switch result {
            case .success(let input):
                do {
                    switch try transform.proceed(with: input) {
                    case .value(let value): return Future<Transform.Output>(value: value)
                    case .future(let inner): return inner
                    }
                } catch {
                    return Future<Transform.Output>(error: error)
                }
            case .failure(let error):
                return Future<Transform.Output>(error: error)
            }
        }
        let step = TransformStep(following: storage, transform: transform)
        step.attach(to: storage)
        return Future<Transform.Output>(storage: step)
    }

    /// A future whose error, if any, is replaced by `transform`'s; values pass through.
    @inlinable
    public func mapError(_ transform: @escaping @Sendable (any Error) -> any Error) -> Future<Value> {
        if let result = storage.resultForInlineStep {
            return Future(result: result.mapError(transform))
        }
        return chained { $0.mapError(transform) }
    }

    /// A future that turns this future's error into a value; values pass through.
    ///
    /// If `transform` throws, the new future fails with that error.
    @inlinable
    public func recover(_ transform: @escaping @Sendable (any Error) throws -> Value) -> Future<Value> {
        if let result = storage.resultForInlineStep { return Future(result: Self.recoverStep(result, transform)) }
        return chained { Self.recoverStep($0, transform) }
    }

    /// A future that turns this future's error into another future, e.g. a fallback request;
    /// values pass through.
    @inlinable
    public func recover(_ transform: @escaping @Sendable (any Error) throws -> Future<Value>) -> Future<Value> {
        if let result = storage.resultForInlineStep { return Self.flatRecoverStep(result, transform) }
        return flatChained { Self.flatRecoverStep($0, transform) }
    }

    /// A future that completes like this one, after `body` has seen the result; for side effects
    /// in the middle of a chain (logging, metrics, ending a span).
    ///
    /// Everything chained from the returned future runs after `body` has returned, even when this
    /// future completes on another thread while the chain is being built.
    @inlinable
    public func always(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Future<Value> {
        if let result = storage.resultForInlineStep {
            body(result)
            return self
        }
        return chained { result in
            body(result)
            return result
        }
    }

    @inlinable
    static func flatMapStep<NewValue: Sendable>(
        _ result: Result<Value, any Error>,
        _ transform: (Value) throws -> Future<NewValue>
    ) -> Future<NewValue> {
        switch result {
        case .success(let value):
            do { return try transform(value) } catch { return Future<NewValue>(error: error) }
        case .failure(let error):
            return Future<NewValue>(error: error)
        }
    }

    @inlinable
    static func recoverStep(
        _ result: Result<Value, any Error>,
        _ transform: (any Error) throws -> Value
    ) -> Result<Value, any Error> {
        guard case .failure(let error) = result else { return result }
        return Result { try transform(error) }
    }

    @inlinable
    static func flatRecoverStep(
        _ result: Result<Value, any Error>,
        _ transform: (any Error) throws -> Future<Value>
    ) -> Future<Value> {
        guard case .failure(let error) = result else { return Future(result: result) }
        do { return try transform(error) } catch { return Future(error: error) }
    }

    /// A pending future completed with `next` of this one's result.
    @inlinable
    func chained<NewValue: Sendable>(
        _ next: @escaping @Sendable (Result<Value, any Error>) -> Result<NewValue, any Error>
    ) -> Future<NewValue> {
        let step = ResultStep(following: storage, next: next)
        step.attach(to: storage)
        return Future<NewValue>(storage: step)
    }

    /// A pending future completed like the future `next` returns for this one's result.
    @inlinable
    func flatChained<NewValue: Sendable>(
        _ next: @escaping @Sendable (Result<Value, any Error>) -> Future<NewValue>
    ) -> Future<NewValue> {
        let child = Future<NewValue>.Storage(following: storage)
        storage.append { [storage] in
            Future<NewValue>.complete(child, like: next(storage.resultOfCompleted).storage)
        }
        return Future<NewValue>(storage: child)
    }

    /// Completes `waiting` like `inner` (the future a `flatMap`-style step's transform returned):
    /// at once if `inner` has completed, otherwise when it does, with cancellation pointed at
    /// it meanwhile.
    @inlinable
    static func complete(_ waiting: Storage, like inner: Storage) -> Unmanaged<FutureCore>? {
        if let result = inner.completedResult {
            return waiting.completeInChain(result)
        }
        waiting.setUpstream(inner)
        inner.append(
            FutureContinuation(target: waiting) { waiting, inner in
                let waiting = unsafeDowncast(waiting.unsafelyUnwrapped, to: Storage.self)
                let inner = unsafeDowncast(inner, to: Storage.self)
                return waiting.complete(inner.resultOfCompleted, from: inner)
            })
        return nil
    }
}

extension Result where Failure == any Error {
    @inlinable
    func flatMapThrowing<NewSuccess>(
        _ transform: (Success) throws -> NewSuccess
    ) -> Result<NewSuccess, any Error> {
        switch self {
        case .success(let value):
            do { return .success(try transform(value)) } catch { return .failure(error) }
        case .failure(let error):
            return .failure(error)
        }
    }
}
