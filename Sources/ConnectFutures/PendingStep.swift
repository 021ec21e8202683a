/// The producer side of a step's future whose producer hands the step its input directly,
/// rather than through a future of its own that the step would follow: for a producer that
/// completes many kinds of work with one kind of input, each run through its caller's own step
/// where the producer completes it.
///
/// Compared with a ``Promise``'s future followed by ``Future/then(_:)``, the input never sits in
/// a future: one future fewer to allocate, lock, complete and release for every request, and no
/// promise object either: the producer keeps this value in one of its stored properties.
///
/// Not generic over the step: the producer is one type whatever the step. The step
/// is reached through a function made where its type is known, so that its work runs
/// specialized; a protocol's witnesses for a generic class would run it unspecialized, looking
/// up type metadata on every call.
///
/// The producer completes it once, with ``receive(_:)``, and calls ``abandonIfPending()`` from
/// its `deinit`, as a promise does from its own. Same package only.
@usableFromInline
package struct PendingStep<Input: Sendable>: Sendable {
    /// The step's future.
    @usableFromInline let step: FutureCore
    /// Runs the step on an input; `true`: its continuations run on this thread, `false`: where
    /// they belong. Captures nothing: specialized, it is a plain function.
    @usableFromInline let feed: @Sendable (FutureCore, Result<Input, any Error>, Bool) -> Void

    @inlinable
    init(step: FutureCore, feed: @escaping @Sendable (FutureCore, Result<Input, any Error>, Bool) -> Void) {
        self.step = step
        self.feed = feed
    }

    /// A pending step that runs `transform` on the input, and the future of its value.
    @inlinable
    package static func making<Transform: ValueTransform>(
        context: FutureContext?, transform: consuming Transform
    ) -> (producer: PendingStep<Input>, future: Future<Transform.Output>) where Transform.Input == Input {
        let step = TransformStep(pendingWith: context, transform: transform)
        let producer = PendingStep(step: step) { step, input, here in
            unsafeDowncast(step, to: TransformStep<Transform>.self).receive(input, runningContinuationsHere: here)
        }
        return (producer, Future(storage: step))
    }

    /// Whether the step's future has completed, e.g. because it was cancelled.
    @inlinable
    package var isCompleted: Bool { step.isCompleted }

    /// Runs the step on `input` (a failure passes through) and completes its future; the
    /// waiting continuations run on this thread, whatever the callback queue: for a producer
    /// that calls it on that queue already. Ignored once the future has completed.
    @inlinable
    package func receive(_ input: Result<Input, any Error>) {
        feed(step, input, true)
    }

    /// Sends a cancellation of the future to `observer`.
    package func onCancel(notifying observer: some PromiseCancellationObserver) {
        step.setCancellationHandler(observer)
    }

    /// For the producer's `deinit`: fails the future with ``FutureError/promiseAbandoned`` if
    /// nothing completed it; its continuations run where they belong.
    @inlinable
    package func abandonIfPending() {
        if !step.isCompleted { failAbandoned() }
    }

    @usableFromInline
    @inline(never)
    func failAbandoned() {
        feed(step, .failure(FutureError.promiseAbandoned), false)
    }
}

extension TransformStep {
    /// Completes the step from its producer's input (see ``PendingStep``).
    /// Nothing runs once the future has completed (cancelled, say): the transform would do its
    /// work (start more work, even) only for the result to be dropped.
    @inlinable
    func receive(_ input: Result<Transform.Input, any Error>, runningContinuationsHere: Bool) {
        guard !isCompleted, let completed = proceed(from: input) else { return }
        if runningContinuationsHere {
            completed._withUnsafeGuaranteedRef { $0.runWaiting() }
        } else {
            completed._withUnsafeGuaranteedRef { $0.runWaitingWhereTheyBelong() }
        }
    }
}
