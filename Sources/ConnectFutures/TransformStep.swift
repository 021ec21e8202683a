/// The future of a step whose work is a ``ValueTransform`` value: the value it needs lives in the
/// step itself, where a closure would need a context of its own. Like `FlatMapStep`, it is also
/// the target of the continuations of the futures it waits for: its source, then (when the
/// transform hands back a future) that future.
@usableFromInline
final class TransformStep<Transform: ValueTransform>: FutureStorage<FutureSlot<Transform.Output>>, @unchecked Sendable {
    @usableFromInline let transform: Transform

    @inlinable
    init(following source: __shared Future<Transform.Input>.Storage, transform: consuming Transform) {
        self.transform = transform
        super.init(following: source)
    }

    /// A step with no source: its producer hands it the input (see ``PendingStep``).
    @inlinable
    init(pendingWith context: FutureContext?, transform: consuming Transform) {
        self.transform = transform
        super.init(pendingWith: context)
    }

    /// Registers this step on `source`.
    @inlinable
    func attach(to source: Future<Transform.Input>.Storage) {
        source.append(
            FutureContinuation(target: self) { step, source in
                let step = unsafeDowncast(step.unsafelyUnwrapped, to: TransformStep.self)
                let source = unsafeDowncast(source, to: Future<Transform.Input>.Storage.self)
                return step.proceed(from: source.resultOfCompleted)
            })
    }

    /// Completes the step with the transform's work on `input`, or, when the transform hands
    /// back a future, makes the step follow it; returns this future for the caller's run loop
    /// when its continuations are to run now.
    ///
    /// Written out rather than through `flatMapThrowing`: a closure over the transform would copy
    /// it, a retain and a release of each reference it holds, on every run.
    @inlinable
    func proceed(from input: Result<Transform.Input, any Error>) -> Unmanaged<FutureCore>? {
        switch input {
        case .success(let value):
            do {
                switch try transform.proceed(with: value) {
                case .value(let output): return completeInChain(.success(output))
                case .future(let inner): return Future<Transform.Output>.complete(self, like: inner.storage)
                }
            } catch {
                return completeInChain(.failure(error))
            }
        case .failure(let error):
            return completeInChain(.failure(error))
        }
    }
}
