import Dispatch
import Synchronization

/// What a derived future holds on to so that cancelling it reaches the work it waits for: the
/// future it follows, a group of them, or the producer's cancellation handler.
@usableFromInline
package protocol UpstreamCancellable: AnyObject, Sendable {
    /// Cancels; `true` if this call is what ended it.
    func cancelFromDownstream() -> Bool
}

/// The shared state behind a `Future` and its `Promise`.
///
/// A future made already completed (`Future(value:)`, a step on a completed future) is just this:
/// its state, context and result. One that starts pending is a `PendingFutureStorage`, which adds
/// what only a pending future needs.
///
/// `@unchecked Sendable`: `result` is written once, under the lock, before the completed bit is
/// set with release ordering; once an acquiring load sees that bit, `result` never changes again
/// and is read without the lock. That makes observing, mapping or awaiting an already-completed
/// future lock-free.
///
/// Open only to `PendingFutureStorage`; every member is `final`, so nothing is dispatched
/// dynamically.
@usableFromInline
class FutureStorage<Slot: ResultSlot>: UpstreamCancellable, @unchecked Sendable {
    /// The result this future completes with: `Result<Value, any Error>`.
    @usableFromInline typealias Outcome = Slot.Outcome

    /// `completedBit` and, for a pending future, `PendingFutureStorage`'s lock and flag bits.
    @usableFromInline final let state: Atomic<UInt8>
    /// The chain's shared settings; `nil` for plain futures.
    @usableFromInline final let context: FutureContext?
    /// Empty until the result is written, once, before the completed bit is published (see
    /// above), so no access can overlap. Last, so that the other fields sit at the same offsets
    /// whatever the result type is.
    @usableFromInline @exclusivity(unchecked) final var result: Slot

    @usableFromInline static var completedBit: UInt8 { 1 }

    /// A future that has already completed.
    @inlinable
    init(result: Outcome, context: FutureContext? = nil) {
        state = Atomic(Self.completedBit)
        self.result = .holding(result)
        self.context = context
    }

    /// A pending future: only for `PendingFutureStorage`.
    @inlinable
    init(pendingWith context: FutureContext?) {
        state = Atomic(0)
        result = .empty
        self.context = context
    }

    @inlinable
    final var isCompleted: Bool {
        state.load(ordering: .acquiring) & Self.completedBit != 0
    }

    /// This future as the pending kind it must be while it has not completed.
    @inlinable
    final var pending: PendingFutureStorage<Slot> {
        unsafeDowncast(self, to: PendingFutureStorage<Slot>.self)
    }

    @inlinable
    final var callbackQueue: DispatchQueue? { context?.callbackQueue }

    /// The result, if the future has completed; lock-free.
    @inlinable
    final var completedResult: Outcome? {
        isCompleted ? result.held : nil
    }

    /// The result, if the future has completed and a step may run on this thread at once:
    /// the fast path of the operators, which a future with a callback queue never takes.
    @inlinable
    final var resultForInlineStep: Outcome? {
        guard isCompleted, context?.callbackQueue == nil else { return nil }
        return result.held
    }

    /// The result of a future known to be complete: only for continuations, which run after it.
    @inlinable
    final var resultOfCompleted: Outcome {
        result.held
    }

    /// Runs continuations released by a completion from outside a chain: here, or on the
    /// callback queue when the future has one.
    @inlinable
    final func runReleased(_ callbacks: CallbackList) {
        guard !callbacks.isEmpty else { return }
        if let callbackQueue {
            // The list does not hold this future; the block does, until the list has run.
            let source: any AnyObject & Sendable = self
            callbackQueue.async { withExtendedLifetime(source) { callbacks.run() } }
        } else {
            callbacks.run()
        }
    }

    /// Adds a continuation written as a closure; see `append(_:)`.
    @inlinable
    final func append(_ body: @escaping @Sendable () -> CallbackList?) {
        append(FutureContinuation(body))
    }

    /// Adds a continuation, or runs it at once when the result is already there: on this thread,
    /// or on the callback queue when the future has one.
    @inlinable
    final func append(_ continuation: consuming FutureContinuation) {
        if !isCompleted {
            guard let notAdded = pending.add(continuation) else { return }
            continuation = notAdded
        }
        if let callbackQueue {
            let source: any AnyObject & Sendable = self
            let waiting = continuation
            callbackQueue.async { waiting.run(after: source)?.run() }
        } else {
            continuation.run(after: self)?.run()
        }
    }

    /// Returns `true` if this call is what ended the future; see `PendingFutureStorage.cancel()`.
    @usableFromInline
    @discardableResult
    final func cancel() -> Bool {
        isCompleted ? false : pending.cancelPending()
    }

    @usableFromInline
    package final func cancelFromDownstream() -> Bool {
        cancel()
    }
}
