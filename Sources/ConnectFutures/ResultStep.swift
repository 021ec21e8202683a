/// The future of a step that maps a whole result (`mapError`, `recover`), which is also the
/// target of the continuation its source runs.
@usableFromInline
final class ResultStep<Value: Sendable, NewValue: Sendable>: FutureStorage<FutureSlot<NewValue>>, @unchecked Sendable {
    @usableFromInline let next: @Sendable (Result<Value, any Error>) -> Result<NewValue, any Error>

    @inlinable
    init(
        following source: __shared Future<Value>.Storage,
        next: @escaping @Sendable (Result<Value, any Error>) -> Result<NewValue, any Error>
    ) {
        self.next = next
        super.init(following: source)
    }

    /// Registers this step on `source`.
    @inlinable
    func attach(to source: Future<Value>.Storage) {
        source.append(
            FutureContinuation(target: self) { step, source in
                let step = unsafeDowncast(step.unsafelyUnwrapped, to: ResultStep.self)
                let source = unsafeDowncast(source, to: Future<Value>.Storage.self)
                return step.completeInChain(step.next(source.resultOfCompleted))
            })
    }
}
