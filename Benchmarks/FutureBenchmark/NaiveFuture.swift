import Synchronization

/// The baseline a careful engineer writes in an afternoon: one class, a `Mutex` around an enum
/// of the pending callbacks or the result, callbacks run outside the lock. No inline storage,
/// no lock-free reads, no cancellation: what ConnectFutures must beat to be worth its code.
final class NaiveFuture<Value: Sendable>: Sendable {
    typealias Callback = @Sendable (Result<Value, any Error>) -> Void

    private enum State {
        case pending([Callback])
        case completed(Result<Value, any Error>)
    }

    private let state: Mutex<State>

    /// A pending future.
    init() {
        state = Mutex(.pending([]))
    }

    /// A future that has already completed.
    init(result: Result<Value, any Error>) {
        state = Mutex(.completed(result))
    }

    /// Calls `callback` with the result: now if there is one, otherwise on the completing thread.
    func observe(_ callback: @escaping Callback) {
        let result: Result<Value, any Error>? = state.withLock { state in
            switch state {
            case .completed(let result):
                return result
            case .pending(var callbacks):
                state = .pending([])
                callbacks.append(callback)
                state = .pending(callbacks)
                return nil
            }
        }
        if let result { callback(result) }
    }

    /// Completes the future unless it has completed already; runs the callbacks on this thread.
    func complete(_ result: Result<Value, any Error>) {
        let callbacks: [Callback] = state.withLock { state in
            guard case .pending(let callbacks) = state else { return [] }
            state = .completed(result)
            return callbacks
        }
        for callback in callbacks { callback(result) }
    }

    /// A future of `transform` applied to this one's value.
    func map<NewValue: Sendable>(_ transform: @escaping @Sendable (Value) throws -> NewValue) -> NaiveFuture<NewValue> {
        if let result = state.withLock({ state -> Result<Value, any Error>? in
            if case .completed(let result) = state { return result }
            return nil
        }) {
            return NaiveFuture<NewValue>(result: result.flatMap { value in Result { try transform(value) } })
        }
        let next = NaiveFuture<NewValue>()
        observe { result in next.complete(result.flatMap { value in Result { try transform(value) } }) }
        return next
    }

    /// A future of the future `transform` returns for this one's value.
    func flatMap<NewValue: Sendable>(
        _ transform: @escaping @Sendable (Value) throws -> NaiveFuture<NewValue>
    ) -> NaiveFuture<NewValue> {
        let next = NaiveFuture<NewValue>()
        observe { result in
            switch result {
            case .success(let value):
                do {
                    try transform(value).observe { next.complete($0) }
                } catch {
                    next.complete(.failure(error))
                }
            case .failure(let error):
                next.complete(.failure(error))
            }
        }
        return next
    }
}

/// The naive future with what `Promise` adds to it: a producer handle of its own, whose deinit
/// fails the future if it was never completed. Telling an abandoned promise from a future that
/// is merely still referenced takes a second object, so this is the naive version of
/// ConnectFutures' design, the baseline that shows what that design costs by itself.
final class NaivePromise<Value: Sendable>: Sendable {
    let future: NaiveFuture<Value>

    init() {
        future = NaiveFuture()
    }

    deinit {
        future.complete(.failure(CancellationError()))
    }

    func complete(_ result: Result<Value, any Error>) {
        future.complete(result)
    }
}
