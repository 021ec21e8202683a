#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// A future that starts pending: a promise's, or a step chained on a pending future.
///
/// Its fields other than `result` are only touched while holding the lock bit of `state`, a spin
/// lock: every critical section is a few stores, never user code, and it costs one
/// compare-and-swap to take and one plain store to release, where a mutex costs two atomic
/// read-modify-writes. Completing sets the completed bit and releases the lock in one store.
/// Whatever leaves the state (continuations, the upstream, the cancellation handler) is released
/// only after the lock is, because releasing it may run a `Promise`'s deinit, which completes a
/// future.
///
/// Open only to the chain steps that are also their continuation's target (`MapStep`,
/// `FlatMapStep`, `ResultStep`).
@usableFromInline
class PendingFutureStorage<Slot: ResultSlot>: FutureStorage<Slot>, @unchecked Sendable {
    /// The first continuation waiting for the result, inline because most futures have one.
    @usableFromInline @exclusivity(unchecked) final var firstCallback: FutureContinuation?
    /// The others, in the order they were added.
    @usableFromInline @exclusivity(unchecked) final var otherCallbacks: [FutureContinuation]?
    /// The future this one waits for, so `cancel()` can reach it; dropped at completion, which
    /// keeps a completed chain from holding the futures it came from.
    @usableFromInline @exclusivity(unchecked) final var upstream: (any UpstreamCancellable)?
    /// The producer's cancellation hook; see `Promise.onCancel`.
    @usableFromInline @exclusivity(unchecked) final var cancellationHandler: (any PromiseCancellationObserver)?
    /// Set when the future ended by `cancel()`, so a cancellation handler installed late still
    /// runs; written before the completed bit, so readable without the lock after it.
    @usableFromInline @exclusivity(unchecked) final var wasCancelled = false
    /// Set as soon as `cancel()` starts: an upstream attached after that (a `flatMap` step starting
    /// its inner future while the cancel travels) is cancelled at once instead of left running.
    @usableFromInline @exclusivity(unchecked) final var cancelRequested = false

    @usableFromInline static var lockedBit: UInt8 { 2 }

    @inlinable
    init(context: FutureContext?) {
        super.init(pendingWith: context)
    }

    /// A pending future that follows `parent`: same context, cancellation reaches `parent`.
    @inlinable
    init<Parent>(following parent: FutureStorage<Parent>) {
        upstream = parent
        super.init(pendingWith: parent.context)
    }

    /// A pending future that waits for several others (`whenAll`, `zip`, `first`).
    @inlinable
    init(upstream: any UpstreamCancellable, context: FutureContext?) {
        self.upstream = upstream
        super.init(pendingWith: context)
    }

    // MARK: The lock

    /// Takes the lock, unless the future has completed: then returns `false` without it (and the
    /// result is visible to the caller).
    @inlinable
    final func lockUnlessCompleted() -> Bool {
        var current = state.load(ordering: .acquiring)
        var spins = 0
        while true {
            if current & Self.completedBit != 0 { return false }
            if current & Self.lockedBit == 0 {
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: current | Self.lockedBit,
                    successOrdering: .acquiring, failureOrdering: .acquiring)
                if exchanged { return true }
                current = original
            } else {
                spins += 1
                Self.backOff(spins)
                current = state.load(ordering: .acquiring)
            }
        }
    }

    /// Releases the lock; with `completing`, also marks the future completed.
    @inlinable
    final func unlock(completing: Bool) {
        state.store(completing ? Self.completedBit : 0, ordering: .releasing)
    }

    @usableFromInline
    static func backOff(_ spins: Int) {
        // The holder is a few stores from done unless it was descheduled; then let it run.
        if spins > 64 { sched_yield() }
    }

    // MARK: Completing

    /// Stores the result and hands back the continuations to run, or `nil` when the future had
    /// already completed (the second result is dropped).
    @inlinable
    final func complete(_ newResult: Outcome) -> CallbackList? {
        guard lockUnlessCompleted() else { return nil }
        result = .holding(newResult)
        let waiting = takeCallbacks()
        // Released after the lock is; most futures have one of the two, a promise neither.
        var released: (any UpstreamCancellable)?
        if upstream != nil { swap(&released, &upstream) }
        var releasedHandler: (any PromiseCancellationObserver)?
        if cancellationHandler != nil { swap(&releasedHandler, &cancellationHandler) }
        unlock(completing: true)
        return waiting
    }

    /// Moves the continuations out, as the list to run; only under the lock, when completing.
    @inlinable
    final func takeCallbacks() -> CallbackList {
        var waiting = CallbackList()
        // A future nobody waits for hands back an empty list.
        guard firstCallback != nil else { return waiting }
        waiting.source = Unmanaged.passUnretained(self)
        swap(&waiting.first, &firstCallback)
        swap(&waiting.others, &otherCallbacks)
        return waiting
    }

    /// `complete` for use inside a continuation: the caller's run loop runs what it returns.
    @inlinable
    final func completeReturningCallbacks(_ newResult: Outcome) -> CallbackList {
        complete(newResult) ?? CallbackList()
    }

    /// Completes from outside a chain (a promise, a timer, a cancel).
    @inlinable
    @discardableResult
    final func completeAndRun(_ newResult: Outcome) -> Bool {
        guard let waiting = complete(newResult) else { return false }
        runReleased(waiting)
        return true
    }

    /// Completes from a continuation of `source`, which runs on `source`'s queue (or thread): the
    /// released continuations are handed back to run inline when that is where they belong, and
    /// dispatched to this future's own callback queue otherwise.
    @inlinable
    final func complete<Source>(_ newResult: Outcome, from source: FutureStorage<Source>) -> CallbackList {
        let queue = callbackQueue
        if queue == nil || queue === source.callbackQueue {
            return completeReturningCallbacks(newResult)
        }
        completeAndRun(newResult)
        return CallbackList()
    }

    // MARK: Waiting

    /// Adds a continuation unless the future has completed; if it has, hands it back.
    @inlinable
    final func add(_ continuation: consuming FutureContinuation) -> FutureContinuation? {
        guard lockUnlessCompleted() else { return continuation }
        if firstCallback == nil {
            firstCallback = consume continuation
        } else if otherCallbacks == nil {
            otherCallbacks = [continuation]
        } else {
            otherCallbacks!.append(continuation)
        }
        unlock(completing: false)
        return nil
    }

    /// Points cancellation at a new upstream (a `flatMap` step's inner future).
    @inlinable
    final func setUpstream(_ newUpstream: any UpstreamCancellable) {
        guard lockUnlessCompleted() else { return }
        if cancelRequested {
            unlock(completing: false)
            _ = newUpstream.cancelFromDownstream()
            return
        }
        var replaced: (any UpstreamCancellable)? = newUpstream
        swap(&replaced, &upstream)
        unlock(completing: false)
    }

    // MARK: Cancelling

    @usableFromInline
    final func setCancellationHandler(_ handler: any PromiseCancellationObserver) {
        if lockUnlessCompleted() {
            var replaced: (any PromiseCancellationObserver)? = handler
            swap(&replaced, &cancellationHandler)
            unlock(completing: false)
        } else if wasCancelled {
            handler.promiseWasCancelled()
        }
    }

    @usableFromInline
    final var isCancelled: Bool {
        isCompleted && wasCancelled
    }

    /// Returns `true` if this call is what ended the future.
    ///
    /// Cancels the work upstream first, so the whole chain fails with the source's own
    /// cancellation error; if this future is still pending after that (its upstream had already
    /// finished, or it has none), it fails with its own cancellation error.
    @usableFromInline
    final func cancelPending() -> Bool {
        guard lockUnlessCompleted() else { return false }
        cancelRequested = true
        var upstreamToCancel: (any UpstreamCancellable)?
        swap(&upstreamToCancel, &upstream)
        unlock(completing: false)
        let cancelledUpstream = upstreamToCancel?.cancelFromDownstream() ?? false

        let error = context?.cancellationError ?? CancellationError()
        guard lockUnlessCompleted() else {
            // Completed meanwhile: by the cancellation this call sent upstream, or by a result
            // that won the race.
            return cancelledUpstream
        }
        result = .failure(error)
        wasCancelled = true
        let waiting = takeCallbacks()
        var handler: (any PromiseCancellationObserver)?
        swap(&handler, &cancellationHandler)
        unlock(completing: true)
        handler?.promiseWasCancelled()
        runReleased(waiting)
        return true
    }
}
