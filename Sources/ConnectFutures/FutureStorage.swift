import Dispatch
import Synchronization

/// The shared state behind a `Future` and its `Promise`: `FutureCore` and the result.
///
/// A future made already completed (`Future(value:)`, a step on a completed future) is just
/// this. One that starts pending is this too (a promise's), or a chain step that subclasses it
/// and is also its continuation's target (`MapStep`, `FlatMapStep`, `ResultStep`,
/// `TransformStep`).
///
/// `@unchecked Sendable`: `result` is written once, under the lock, before the completed bit is
/// set with release ordering; once an acquiring load sees that bit, `result` never changes again
/// and is read without the lock. That makes observing, mapping or awaiting an already-completed
/// future lock-free.
///
/// Generic over its whole result slot rather than over `Value` (see `ResultSlot`). Open only to
/// the chain steps; every member is `final`, so nothing is dispatched dynamically.
@usableFromInline
class FutureStorage<Slot: ResultSlot>: FutureCore, UpstreamCancellable, @unchecked Sendable {
    /// The result this future completes with: `Result<Value, any Error>`.
    @usableFromInline typealias Outcome = Slot.Outcome

    /// Empty until the result is written, once, before the completed bit is published (see
    /// above), so no access can overlap.
    @usableFromInline @exclusivity(unchecked) final var result: Slot

    /// A future that has already completed.
    @inlinable
    init(result: Outcome, context: FutureContext? = nil) {
        self.result = .holding(result)
        super.init(completed: true, context: context, link: nil)
    }

    /// A pending future: a promise's.
    @inlinable
    init(pendingWith context: FutureContext?) {
        result = .empty
        super.init(completed: false, context: context, link: nil)
    }

    /// A pending future that follows `parent`: same context, cancellation reaches `parent`.
    /// `parent` is borrowed (`__shared`), as by every step's initializer: an owned argument made
    /// each step retain its source once more, only to release it at once.
    @inlinable
    init<Parent>(following parent: __shared FutureStorage<Parent>) {
        result = .empty
        super.init(completed: false, context: parent.context, link: parent)
    }

    /// A pending future that waits for several others (`whenAll`, `zip`, `first`).
    @inlinable
    init(upstream: any UpstreamCancellable, context: FutureContext?) {
        result = .empty
        super.init(completed: false, context: context, link: upstream)
    }

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

    /// The value of a future known to be complete, or its error thrown: what an awaiting task
    /// takes. Code not specialized for the value's type looks the metadata of every
    /// `Result<Value, any Error>` it makes up in the runtime's caches; this makes none.
    @inlinable
    final func valueOfCompleted() throws -> Slot.Value {
        try result.heldValue()
    }

    // MARK: Waiting

    /// Adds a continuation written as a closure; see `append(_:)`.
    @inlinable
    final func append(_ body: @escaping @Sendable () -> Unmanaged<FutureCore>?) {
        append(FutureContinuation(body))
    }

    /// Adds a continuation, or runs it at once when the result is already there: on this thread,
    /// or on the callback queue when the future has one.
    @inlinable
    final func append(_ continuation: consuming FutureContinuation) {
        if !isCompleted {
            guard let notAdded = add(continuation) else { return }
            continuation = notAdded
        }
        if let callbackQueue {
            let waiting = continuation
            let source: FutureCore = self
            callbackQueue.async { waiting.runToTheEnd(after: source) }
        } else {
            continuation.runToTheEnd(after: self)
        }
    }

    // MARK: Completing

    /// Stores the result; `true` if this call completed the future, and the thread that made it
    /// must then run the waiting continuations, `false` (and the result dropped) if it had
    /// already completed.
    @inlinable
    final func store(_ newResult: consuming Outcome) -> Bool {
        guard let bits = lockUnlessCompleted() else { return false }
        fillEmptySlot(.holding(newResult))
        unlockCompleting(from: bits)
        return true
    }

    /// Writes the result of a pending future; only under the lock, before the completed bit is
    /// set. A pending future's slot is always `.empty`, which holds nothing to release, so the
    /// slot is initialized rather than assigned: an assignment would first destroy the old value
    /// through a generic switch. The new slot is moved in, not copied: a closure cannot consume
    /// what it captures, but it can take it out of an optional.
    @inlinable @inline(__always)
    final func fillEmptySlot(_ slot: consuming Slot) {
        var moving = Optional(slot)
        withUnsafeMutablePointer(to: &result) { $0.initialize(to: moving.take().unsafelyUnwrapped) }
    }

    /// Completes inside a continuation: returns this future for the caller's run loop to run its
    /// continuations next, or `nil` when nothing waits (or it had already completed).
    @inlinable
    final func completeInChain(_ newResult: consuming Outcome) -> Unmanaged<FutureCore>? {
        store(newResult) ? waitingToRun : nil
    }

    /// Completes from outside a chain (a promise, a timer, a cancel).
    @inlinable
    @discardableResult
    final func completeAndRun(_ newResult: consuming Outcome) -> Bool {
        guard store(newResult) else { return false }
        runWaitingWhereTheyBelong()
        return true
    }

    /// Completes from a continuation of `source`, which runs on `source`'s queue (or thread): the
    /// waiting continuations are handed back to run inline when that is where they belong, and
    /// dispatched to this future's own callback queue otherwise.
    @inlinable
    final func complete(_ newResult: consuming Outcome, from source: FutureCore) -> Unmanaged<FutureCore>? {
        let queue = callbackQueue
        if queue == nil || queue === source.callbackQueue {
            return completeInChain(newResult)
        }
        completeAndRun(newResult)
        return nil
    }

    // MARK: Cancelling

    /// Returns `true` if this call is what ended the future.
    ///
    /// Cancels the work upstream first, so the whole chain fails with the source's own
    /// cancellation error; if this future is still pending after that (its upstream had already
    /// finished, or it has none), it fails with its own cancellation error, and then the
    /// producer's handler runs.
    @usableFromInline
    @discardableResult
    final func cancel() -> Bool {
        guard var bits = lockUnlessCompleted() else { return false }
        bits |= Self.cancelRequestedBit
        // The upstream leaves the link; the handler stays, for the second half. Both are still
        // held here, so nothing is freed under the lock.
        let upstreamToCancel = upstream(of: bits)
        let handler = handler(of: bits)
        link = handler
        bits = bits & ~Self.linkBits | (handler == nil ? 0 : Self.linkIsHandlerBit)
        unlock(leaving: bits)
        // Cancelled outside the lock: cancelling upstream completes this future through the chain.
        let cancelledUpstream = upstreamToCancel?.cancelFromDownstream() ?? false

        let error = context?.cancellationError ?? CancellationError()
        guard let bitsNow = lockUnlessCompleted() else {
            // Completed meanwhile: by the cancellation this call sent upstream, or by a result
            // that won the race.
            return cancelledUpstream
        }
        fillEmptySlot(.failure(error))
        var handlerToRun: (any UpstreamCancellable)?
        if bitsNow & Self.linkIsHandlerBit != 0 { swap(&handlerToRun, &link) }
        unlock(leaving: Self.completedBit | Self.cancelledBit | bitsNow & Self.hasManyCallbacksBit)
        _ = handlerToRun?.cancelFromDownstream()
        runWaitingWhereTheyBelong()
        return true
    }

    @usableFromInline
    package final func cancelFromDownstream() -> Bool {
        cancel()
    }
}
