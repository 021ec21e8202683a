import Dispatch
import Synchronization

/// What a derived future holds on to so that cancelling it reaches the work it waits for.
@usableFromInline
protocol UpstreamCancellable: AnyObject, Sendable {
    /// Cancels; `true` if this call is what ended it.
    func cancelFromDownstream() -> Bool
}

/// The result type a storage holds: `Result<Value, any Error>`.
///
/// The storage is generic over the whole result type rather than over `Value`, so that its
/// deinit destroys a field whose type is the class's own generic argument. A field of type
/// `Result<Value, Error>?` would make every deinit look the derived types' metadata up in the
/// runtime's hash table, a cost paid on every future step.
@usableFromInline
protocol FutureOutcome {
    static func failure(_ error: any Error) -> Self
}

// Only ever instantiated with a `Sendable` success type: `Future` requires one.
extension Result: FutureOutcome where Failure == any Error {}

/// Held by a pending future in place of its result: the `completed` flag, not this value,
/// says whether the result is there.
@usableFromInline
struct PendingResult: Error {
    @usableFromInline init() {}
}

@usableFromInline
let pendingResult: any Error = PendingResult()
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
class FutureStorage<Outcome: FutureOutcome>: UpstreamCancellable, @unchecked Sendable {
    /// `completedBit` and, for a pending future, `PendingFutureStorage`'s lock bit.
    @usableFromInline final let state: Atomic<UInt8>
    /// The chain's shared settings; `nil` for plain futures.
    @usableFromInline final let context: FutureContext?
    /// Written once before the completed bit is published (see above), so no access can overlap.
    /// Last, so that the other fields sit at the same offsets whatever `Outcome` is.
    @usableFromInline @exclusivity(unchecked) final var result: Outcome

    @usableFromInline static var completedBit: UInt8 { 1 }

    /// A future that has already completed.
    @inlinable
    init(result: Outcome, context: FutureContext? = nil) {
        state = Atomic(Self.completedBit)
        self.result = result
        self.context = context
    }

    /// A pending future: only for `PendingFutureStorage`.
    @inlinable
    init(pendingWith context: FutureContext?) {
        state = Atomic(0)
        result = .failure(pendingResult)
        self.context = context
    }

    @inlinable
    final var isCompleted: Bool {
        state.load(ordering: .acquiring) & Self.completedBit != 0
    }

    /// This future as the pending kind it must be while it has not completed.
    @inlinable
    final var pending: PendingFutureStorage<Outcome> {
        unsafeDowncast(self, to: PendingFutureStorage<Outcome>.self)
    }

    @inlinable
    final var callbackQueue: DispatchQueue? { context?.callbackQueue }

    /// The result, if the future has completed; lock-free.
    @inlinable
    final var completedResult: Outcome? {
        isCompleted ? result : nil
    }

    /// The result, if the future has completed and a step may run on this thread at once:
    /// the fast path of the operators, which a future with a callback queue never takes.
    @inlinable
    final var resultForInlineStep: Outcome? {
        guard isCompleted, context?.callbackQueue == nil else { return nil }
        return result
    }

    /// The result of a future known to be complete: only for continuations, which run after it.
    @inlinable
    final var resultOfCompleted: Outcome {
        result
    }

    /// Runs continuations released by a completion from outside a chain: here, or on the
    /// callback queue when the future has one.
    @inlinable
    final func runReleased(_ callbacks: CallbackList) {
        guard !callbacks.isEmpty else { return }
        if let callbackQueue {
            callbackQueue.async { callbacks.run() }
        } else {
            callbacks.run()
        }
    }

    /// Adds a continuation written as a closure; see `append(_:)`.
    @inlinable
    final func append(_ body: @escaping @Sendable () -> CallbackList) {
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
            callbackQueue.async { waiting.run(after: source).run() }
        } else {
            continuation.run(after: self).run()
        }
    }

    /// Returns `true` if this call is what ended the future; see `PendingFutureStorage.cancel()`.
    @usableFromInline
    @discardableResult
    final func cancel() -> Bool {
        isCompleted ? false : pending.cancelPending()
    }

    @usableFromInline
    final func cancelFromDownstream() -> Bool {
        cancel()
    }
}
