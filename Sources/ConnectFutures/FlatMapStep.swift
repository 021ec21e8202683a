/// The future of a `flatMap` step, which is also the target of the continuations of both futures
/// it waits for: first its source, then (unless it had already completed) the future `transform`
/// returned.
@usableFromInline
final class FlatMapStep<Value: Sendable, NewValue: Sendable>: FutureStorage<FutureSlot<NewValue>>, @unchecked Sendable {
    @usableFromInline let transform: @Sendable (Value) throws -> Future<NewValue>

    @inlinable
    init(
        following source: __shared Future<Value>.Storage,
        transform: @escaping @Sendable (Value) throws -> Future<NewValue>
    ) {
        self.transform = transform
        super.init(following: source)
    }

    /// Registers this step on `source`.
    @inlinable
    func attach(to source: Future<Value>.Storage) {
        source.append(
            FutureContinuation(target: self) { step, source in
                let step = unsafeDowncast(step.unsafelyUnwrapped, to: FlatMapStep.self)
                let source = unsafeDowncast(source, to: Future<Value>.Storage.self)
                return Future<NewValue>.complete(
                    step, like: Future<Value>.flatMapStep(source.resultOfCompleted, step.transform).storage)
            })
    }
}
