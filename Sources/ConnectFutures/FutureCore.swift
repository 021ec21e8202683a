#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// What every future holds whatever its value type: its state, its context, the continuations
/// waiting for it and its cancellation link. `FutureStorage` adds the result.
///
/// Not generic, so that the loop that runs a chain (`runWaiting()`) reaches the continuations of
/// any future through one type, and a continuation hands the future it completed back to that
/// loop as a single reference.
///
/// The fields other than `state` are only touched while holding the lock bit of `state`, a spin
/// lock: every critical section is a few stores, never user code, and it costs one
/// compare-and-swap to take and one plain store to release, where a mutex costs two atomic
/// read-modify-writes. Completing sets the completed bit and releases the lock in one store.
/// From then on nothing else touches the continuations (adding one to a completed future runs
/// it instead), so the thread that completed the future runs them without the lock. Whatever
/// leaves the state (the upstream, the cancellation handler) is released only after the lock
/// is, because releasing it may run a `Promise`'s deinit, which completes a future.
///
/// Open only to `FutureStorage`; every member is `final`, so nothing is dispatched dynamically.
@usableFromInline
class FutureCore: @unchecked Sendable {
    /// `completedBit`, the lock bit and the flags below.
    @usableFromInline final let state: Atomic<UInt8>
    /// The chain's shared settings; `nil` for plain futures.
    @usableFromInline final let context: FutureContext?
    /// The continuation waiting for the result, inline because most futures have one. When a
    /// second one arrives, `hasManyCallbacksBit` is set and this holds a `ContinuationList` of
    /// them all as its target: a rare case, which costs every other future no second field.
    @usableFromInline @exclusivity(unchecked) final var waiting: FutureContinuation?
    /// Where cancelling this future goes, dropped at completion (which keeps a completed chain
    /// from holding the futures it came from). What it is, `linkBits` of `state` say: the future
    /// this one waits for, the producer's cancellation handler (`Promise.onCancel`), or both
    /// together in a `CancellationPair`. One field rather than two keeps a step's storage small.
    /// Spelled `Optional<...>` so that it has no implicit `nil` to overwrite: the initializer
    /// sets it once, with no release of a previous value.
    @usableFromInline @exclusivity(unchecked) final var link: Optional<any UpstreamCancellable>

    @usableFromInline static var completedBit: UInt8 { 1 }
    // The other bits of `state`; all but `lockedBit` change only under the lock.
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
    /// `waiting` holds a `ContinuationList`.
    @usableFromInline static var hasManyCallbacksBit: UInt8 { 64 }

    /// A future that is `completed` already, or pending with cancellation going to `link`.
    @inlinable @inline(__always)
    init(completed: Bool, context: FutureContext?, link: (any UpstreamCancellable)?) {
        self.link = link
        state = Atomic(completed ? Self.completedBit : 0)
        self.context = context
    }

    @inlinable
    final var isCompleted: Bool {
        state.load(ordering: .acquiring) & Self.completedBit != 0
    }

    @inlinable
    final var callbackQueue: DispatchQueue? { context?.callbackQueue }

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

    /// Marks the future completed and releases the lock, then the cancellation link, which a
    /// completed future no longer needs; only under the lock (taken with `bits`), after the
    /// result is stored. Of the other bits, only `hasManyCallbacksBit` stays.
    @inlinable
    final func unlockCompleting(from bits: UInt8) {
        let completed = Self.completedBit | bits & Self.hasManyCallbacksBit
        guard link != nil else { return unlock(leaving: completed) }
        // Released after the lock is.
        var released: (any UpstreamCancellable)?
        swap(&released, &link)
        withExtendedLifetime(released) { unlock(leaving: completed) }
    }

    // MARK: Waiting

    /// Adds a continuation unless the future has completed; if it has, hands it back.
    @inlinable
    final func add(_ continuation: consuming FutureContinuation) -> FutureContinuation? {
        guard let bits = lockUnlessCompleted() else { return continuation }
        if waiting == nil {
            waiting = consume continuation
            unlock(leaving: bits)
        } else {
            unlock(leaving: addAnother(continuation, bits: bits))
        }
        return nil
    }

    /// `add` for a future that already has a continuation; only under the lock. Returns the
    /// bits to unlock with.
    @usableFromInline
    final func addAnother(_ continuation: FutureContinuation, bits: UInt8) -> UInt8 {
        if bits & Self.hasManyCallbacksBit != 0 {
            unsafeDowncast(waiting.unsafelyUnwrapped.target.unsafelyUnwrapped, to: ContinuationList.self).items.append(
                continuation)
            return bits
        }
        waiting = ContinuationList.continuation(running: [waiting.unsafelyUnwrapped, continuation])
        return bits | Self.hasManyCallbacksBit
    }

    /// `true` when `waiting` holds a `ContinuationList`; on a completed future, whose bits no
    /// longer change.
    @inlinable
    final var hasManyCallbacks: Bool {
        state.load(ordering: .relaxed) & Self.hasManyCallbacksBit != 0
    }

    // MARK: Running the waiting continuations

    /// This future, for a run loop to run its waiting continuations next: only by the thread
    /// that completed it, and `nil` when nothing waits.
    @inlinable
    final var waitingToRun: Unmanaged<FutureCore>? {
        waiting == nil ? nil : Unmanaged.passUnretained(self)
    }

    /// Runs the continuations waiting for this completed future, and every continuation they
    /// release, depth first and in order, without growing the stack with the length of the chain.
    /// Only by the thread that completed it (or the block it sent them to), which holds the
    /// future until this returns.
    @inlinable
    final func runWaiting() {
        guard !hasManyCallbacks else { return runWaitingOfMany() }
        // The common case: a straight chain where each step has one follower. Each future's
        // continuation is moved out of it rather than copied, so none is retained only to be
        // released.
        var next = Unmanaged.passUnretained(self)
        // The continuation that completed `next`: it holds `next` until its continuations ran.
        var producer: FutureContinuation?
        while true {
            guard let step = next._withUnsafeGuaranteedRef({ $0.waiting.take() }),
                let following = next._withUnsafeGuaranteedRef({ step.run(after: $0) })
            else { return }
            next = following
            // Moved, not copied: the previous producer is released here, once its step has run.
            producer = consume step
            if next._withUnsafeGuaranteedRef({ $0.hasManyCallbacks }) {
                return withExtendedLifetime(producer) { next._withUnsafeGuaranteedRef { $0.runWaitingOfMany() } }
            }
        }
    }

    /// `runWaiting()` for futures with more than one continuation: each waiting continuation
    /// keeps its future alive on the stack.
    @usableFromInline
    final func runWaitingOfMany() {
        var stack: [(FutureContinuation, FutureCore)] = []
        func push(_ future: FutureCore) {
            guard let continuation = future.waiting.take() else { return }
            guard future.hasManyCallbacks else { return stack.append((continuation, future)) }
            let list = unsafeDowncast(continuation.target.unsafelyUnwrapped, to: ContinuationList.self)
            for continuation in list.items.reversed() { stack.append((continuation, future)) }
        }
        push(self)
        while let (step, source) = stack.popLast() {
            if let following = step.run(after: source) { push(following.takeUnretainedValue()) }
        }
    }

    /// Runs the continuations of a future this thread completed from outside a chain: here, or
    /// on the callback queue when the future has one.
    @inlinable
    final func runWaitingWhereTheyBelong() {
        guard waiting != nil else { return }
        if let callbackQueue {
            // The block holds this future, and with it the continuations, until they have run.
            callbackQueue.async { [self] in runWaiting() }
        } else {
            runWaiting()
        }
    }

    // MARK: Cancellation links

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
        if bits & Self.linkIsPairBit != 0 {
            return unsafeDowncast(link.unsafelyUnwrapped, to: CancellationPair.self).handler
        }
        return nil
    }

    /// The upstream in `link`, if it holds one; only under the lock.
    @inlinable
    final func upstream(of bits: UInt8) -> (any UpstreamCancellable)? {
        if bits & Self.linkIsHandlerBit != 0 { return nil }
        if bits & Self.linkIsPairBit != 0 {
            return unsafeDowncast(link.unsafelyUnwrapped, to: CancellationPair.self).upstream
        }
        return link
    }

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
}
