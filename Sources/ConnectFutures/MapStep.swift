/// The future of a `map` step, which is also the target of the continuation its source runs:
/// one allocation per step, holding the transform as the caller gave it.
@usableFromInline
final class MapStep<Value: Sendable, NewValue: Sendable>: FutureStorage<FutureSlot<NewValue>>, @unchecked Sendable {
    @usableFromInline let transform: @Sendable (Value) throws -> NewValue

    @inlinable
    init(following source: __shared Future<Value>.Storage, transform: @escaping @Sendable (Value) throws -> NewValue) {
        self.transform = transform
        super.init(following: source)
    }

    /// Registers this step on `source`.
    @inlinable
    func attach(to source: Future<Value>.Storage) {
        source.append(
            FutureContinuation(target: self) { step, source in
                let step = unsafeDowncast(step.unsafelyUnwrapped, to: MapStep.self)
                let source = unsafeDowncast(source, to: Future<Value>.Storage.self)
                return step.completeInChain(source.resultOfCompleted.flatMapThrowing(step.transform))
            })
    }
}
