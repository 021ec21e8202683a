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
    /// Where cancelling this future goes, dropped at completion (which keeps a completed chain
    /// from holding the futures it came from). What it is, `linkBits` of `state` say: the future
    /// this one waits for, the producer's cancellation handler (`Promise.onCancel`), or both
    /// together in a `CancellationPair`. One field rather than two keeps a step's storage small.
    @usableFromInline @exclusivity(unchecked) final var link: (any UpstreamCancellable)?

    // The bits of `state` besides `completedBit`; all but `lockedBit` change only under the lock.
    @usableFromInline static var lockedBit: UInt8 { 2 }
    /// Set with the completed bit when the future ended by `cancel()`, so a cancellation handler
    /// installed late still runs.
    @usableFromInline static var cancelledBit: UInt8 { 4 }
    /// Set as soon as `cancel()` starts: an upstream attached after that (a `flatMap` step
    /// starting its inner future while the cancel travels) is cancelled at once instead of left
    /// running.
    @usableFromInline static var cancelRequestedBit: UInt8 { 8 }
    /// `link` is the producer's cancellation handler.
    @usableFromInline static var linkIsHandlerBit: UInt8 { 16 }
    /// `link` is a `CancellationPair` of an upstream and a handler.
    @usableFromInline static var linkIsPairBit: UInt8 { 32 }
    @usableFromInline static var linkBits: UInt8 { linkIsHandlerBit | linkIsPairBit }

    @inlinable
    init(context: FutureContext?) {
        super.init(pendingWith: context)
    }

    /// A pending future that follows `parent`: same context, cancellation reaches `parent`.
    @inlinable
    init<Parent>(following parent: FutureStorage<Parent>) {
        link = parent
        super.init(pendingWith: parent.context)
    }

    /// A pending future that waits for several others (`whenAll`, `zip`, `first`).
    @inlinable
    init(upstream: any UpstreamCancellable, context: FutureContext?) {
        link = upstream
        super.init(pendingWith: context)
    }

    // MARK: The lock

    /// Takes the lock, unless the future has completed: then returns `nil` without it (and the
    /// result is visible to the caller). Otherwise returns the other bits of the state, which
    /// `unlock` writes back, changed or not.
    @inlinable @inline(__always)
    final func lockUnlessCompleted() -> UInt8? {
        var current = state.load(ordering: .acquiring)
        var spins = 0
        while true {
            if current & Self.completedBit != 0 { return nil }
            if current & Self.lockedBit == 0 {
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: current | Self.lockedBit,
                    successOrdering: .acquiring, failureOrdering: .acquiring)
                if exchanged { return current }
                current = original
            } else {
                spins += 1
                Self.backOff(spins)
                current = state.load(ordering: .acquiring)
            }
        }
    }

    /// Releases the lock, leaving `bits` as the state: what `lockUnlessCompleted` returned, with
    /// any changes, plus `completedBit` when completing.
    @inlinable
    final func unlock(leaving bits: UInt8) {
        state.store(bits, ordering: .releasing)
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
        guard lockUnlessCompleted() != nil else { return nil }
        result = .holding(newResult)
        let waiting = takeCallbacks()
        unlockCompleting()
        return waiting
    }

    /// Marks the future completed and releases the lock, then the cancellation link, which a
    /// completed future no longer needs; only under the lock, after the result is stored.
    @inlinable
    final func unlockCompleting() {
        guard link != nil else { return unlock(leaving: Self.completedBit) }
        // Released after the lock is.
        var released: (any UpstreamCancellable)?
        swap(&released, &link)
        withExtendedLifetime(released) { unlock(leaving: Self.completedBit) }
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

    /// `complete` for use inside a continuation: the caller's run loop runs what it returns,
    /// `nil` when nothing waits (or the future had already completed).
    @inlinable
    final func completeReturningCallbacks(_ newResult: Outcome) -> CallbackList? {
        guard lockUnlessCompleted() != nil else { return nil }
        result = .holding(newResult)
        let waiting = firstCallback == nil ? nil : takeCallbacks()
        unlockCompleting()
        return waiting
    }

    /// Completes from outside a chain (a promise, a timer, a cancel).
    @inlinable
    @discardableResult
    final func completeAndRun(_ newResult: Outcome) -> Bool {
        if callbackQueue == nil { return completeAndRunHere(newResult) }
        guard let waiting = complete(newResult) else { return false }
        runReleased(waiting)
        return true
    }

    /// Completes and runs the released continuations on this thread, whatever the callback
    /// queue: for a future without one, or a producer already running on it.
    ///
    /// The common cases skip the callback list: a promise completed before anyone waits for it
    /// only stores its result, and one with a single continuation runs it straight away.
    @inlinable
    @discardableResult
    final func completeAndRunHere(_ newResult: Outcome) -> Bool {
        guard lockUnlessCompleted() != nil else { return false }
        result = .holding(newResult)
        if otherCallbacks != nil {
            let waiting = takeCallbacks()
            unlockCompleting()
            waiting.run()
            return true
        }
        var only: FutureContinuation?
        swap(&only, &firstCallback)
        unlockCompleting()
        // It holds what it completes until that future's own continuations have run.
        if let only, let next = only.run(after: self) {
            withExtendedLifetime(only) { next.run() }
        }
        return true
    }

    /// Completes from a continuation of `source`, which runs on `source`'s queue (or thread): the
    /// released continuations are handed back to run inline when that is where they belong, and
    /// dispatched to this future's own callback queue otherwise.
    @inlinable
    final func complete<Source>(_ newResult: Outcome, from source: FutureStorage<Source>) -> CallbackList? {
        let queue = callbackQueue
        if queue == nil || queue === source.callbackQueue {
            return completeReturningCallbacks(newResult)
        }
        completeAndRun(newResult)
        return nil
    }

    // MARK: Waiting

    /// Adds a continuation unless the future has completed; if it has, hands it back.
    @inlinable
    final func add(_ continuation: consuming FutureContinuation) -> FutureContinuation? {
        guard let bits = lockUnlessCompleted() else { return continuation }
        if firstCallback == nil {
            firstCallback = consume continuation
        } else if otherCallbacks == nil {
            otherCallbacks = [continuation]
        } else {
            otherCallbacks!.append(continuation)
        }
        unlock(leaving: bits)
        return nil
    }

    /// Points cancellation at a new upstream (a `flatMap` step's inner future), keeping the
    /// producer's handler if there is one.
    @inlinable
    final func setUpstream(_ newUpstream: any UpstreamCancellable) {
        guard var bits = lockUnlessCompleted() else { return }
        if bits & Self.cancelRequestedBit != 0 {
            unlock(leaving: bits)
            _ = newUpstream.cancelFromDownstream()
            return
        }
        var replaced: (any UpstreamCancellable)?
        if let handler = handler(of: bits) {
            replaced = link
            link = CancellationPair(upstream: newUpstream, handler: handler)
            bits = bits & ~Self.linkBits | Self.linkIsPairBit
        } else {
            replaced = newUpstream
            swap(&replaced, &link)
        }
        withExtendedLifetime(replaced) { unlock(leaving: bits) }
    }

    /// The producer's handler in `link`, if it holds one; only under the lock.
    @inlinable
    final func handler(of bits: UInt8) -> (any UpstreamCancellable)? {
        if bits & Self.linkIsHandlerBit != 0 { return link }
        if bits & Self.linkIsPairBit != 0 { return unsafeDowncast(link.unsafelyUnwrapped, to: CancellationPair.self).handler }
        return nil
    }

    /// The upstream in `link`, if it holds one; only under the lock.
    @inlinable
    final func upstream(of bits: UInt8) -> (any UpstreamCancellable)? {
        if bits & Self.linkIsHandlerBit != 0 { return nil }
        if bits & Self.linkIsPairBit != 0 { return unsafeDowncast(link.unsafelyUnwrapped, to: CancellationPair.self).upstream }
        return link
    }

    // MARK: Cancelling

    @usableFromInline
    final func setCancellationHandler(_ handler: any PromiseCancellationObserver) {
        guard var bits = lockUnlessCompleted() else {
            if isCancelled { handler.promiseWasCancelled() }
            return
        }
        let replaced = link
        if let upstream = upstream(of: bits) {
            link = CancellationPair(upstream: upstream, handler: handler)
            bits = bits & ~Self.linkBits | Self.linkIsPairBit
        } else {
            link = handler
            bits = bits & ~Self.linkBits | Self.linkIsHandlerBit
        }
        withExtendedLifetime(replaced) { unlock(leaving: bits) }
    }

    @usableFromInline
    final var isCancelled: Bool {
        let bits = state.load(ordering: .acquiring)
        return bits & Self.completedBit != 0 && bits & Self.cancelledBit != 0
    }

    /// Returns `true` if this call is what ended the future.
    ///
    /// Cancels the work upstream first, so the whole chain fails with the source's own
    /// cancellation error; if this future is still pending after that (its upstream had already
    /// finished, or it has none), it fails with its own cancellation error, and then the
    /// producer's handler runs.
    @usableFromInline
    final func cancelPending() -> Bool {
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
        result = .failure(error)
        let waiting = takeCallbacks()
        var handlerToRun: (any UpstreamCancellable)?
        if bitsNow & Self.linkIsHandlerBit != 0 { swap(&handlerToRun, &link) }
        unlock(leaving: Self.completedBit | Self.cancelledBit)
        _ = handlerToRun?.cancelFromDownstream()
        runReleased(waiting)
        return true
    }
}
