/// The future of a step whose work is a ``StepTransform`` value: the value it needs lives in the
/// step itself, where a closure would need a context of its own. Like `FlatMapStep`, it is also
/// the target of the continuations of the futures it waits for: its source, then (when the
/// transform hands back a future) that future.
@usableFromInline
final class TransformStep<Transform: StepTransform>: FutureStorage<FutureSlot<Transform.Output>>, @unchecked Sendable {
    @usableFromInline let transform: Transform

    @inlinable
    init(following source: __shared Future<Transform.Input>.Storage, transform: consuming Transform) {
        self.transform = transform
        super.init(following: source)
    }

    /// Registers this step on `source`.
    @inlinable
    func attach(to source: Future<Transform.Input>.Storage) {
        source.append(FutureContinuation(target: self) { step, source in
            let step = unsafeDowncast(step.unsafelyUnwrapped, to: TransformStep.self)
            let source = unsafeDowncast(source, to: Future<Transform.Input>.Storage.self)
            // Written out rather than through `flatMapThrowing`: a closure over the transform
            // would copy it, a retain and a release of each reference it holds, on every run.
            switch source.resultOfCompleted {
            case .success(let input):
                do {
                    switch try step.transform.proceed(with: input) {
                    case .value(let value): return step.completeInChain(.success(value))
                    case .future(let inner): return Future<Transform.Output>.complete(step, like: inner.storage)
                    }
                } catch {
                    return step.completeInChain(.failure(error))
                }
            case .failure(let error):
                return step.completeInChain(.failure(error))
            }
        })
    }
}
