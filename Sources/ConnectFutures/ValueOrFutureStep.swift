/// The future of a ``Future/flatMap(valueOrFuture:)`` step: a `flatMap` step whose transform can
/// hand back its value directly. Like `FlatMapStep`, it is also the target of the continuations
/// of the futures it waits for.
@usableFromInline
final class ValueOrFutureStep<Value: Sendable, NewValue: Sendable>: FutureStorage<FutureSlot<NewValue>>, @unchecked Sendable {
    @usableFromInline let transform: @Sendable (Value) throws -> ValueOrFuture<NewValue>

    @inlinable
    init(following source: __shared Future<Value>.Storage, transform: @escaping @Sendable (Value) throws -> ValueOrFuture<NewValue>) {
        self.transform = transform
        super.init(following: source)
    }

    /// Registers this step on `source`.
    @inlinable
    func attach(to source: Future<Value>.Storage) {
        source.append(FutureContinuation(target: self) { step, source in
            let step = unsafeDowncast(step.unsafelyUnwrapped, to: ValueOrFutureStep.self)
            let source = unsafeDowncast(source, to: Future<Value>.Storage.self)
            switch source.resultOfCompleted.flatMapThrowing(step.transform) {
            case .success(.value(let value)): return step.completeInChain(.success(value))
            case .success(.future(let inner)): return Future<NewValue>.complete(step, like: inner.storage)
            case .failure(let error): return step.completeInChain(.failure(error))
            }
        })
    }
}
