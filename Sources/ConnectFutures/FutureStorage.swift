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
/// runtime's hash table, which measured as the largest cost of a future step on Linux.
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

/// The state of a pending future, guarded by the storage's lock and emptied at completion.
@usableFromInline
struct PendingState: Sendable {
    /// Continuations waiting for the result.
    @usableFromInline var callbacks = CallbackList()
    /// The future this one waits for, so `cancel()` can reach it; dropped at completion, which
    /// keeps a completed chain from holding the futures it came from.
    @usableFromInline var upstream: (any UpstreamCancellable)?
    /// The producer's cancellation hook; see `Promise.onCancel`.
    @usableFromInline var cancellationHandler: (@Sendable () -> Void)?
    /// Set when the future ended by `cancel()`, so a cancellation handler installed late still runs.
    @usableFromInline var wasCancelled = false
    /// Set as soon as `cancel()` starts: an upstream attached after that (a `flatMap` step starting
    /// its inner future while the cancel travels) is cancelled at once instead of left running.
    @usableFromInline var cancelRequested = false

    @inlinable init() {}

    @inlinable init(upstream: any UpstreamCancellable) {
        self.upstream = upstream
    }
}

/// The shared state behind a `Future` and its `Promise`.
///
/// `@unchecked Sendable`: `result` is written once, under `lock`, before `completed` is set with
/// release ordering; once an acquiring load of `completed` sees `true`, `result` never changes
/// again and is read without the lock. Everything else mutable is inside `lock`. That makes
/// observing, mapping or awaiting an already-completed future lock-free.
@usableFromInline
final class FutureStorage<Outcome: FutureOutcome>: UpstreamCancellable, @unchecked Sendable {
    @usableFromInline let completed: Atomic<Bool>
    @usableFromInline let lock: Locked<PendingState>
    /// Written once before `completed` is published (see above), so no access can overlap.
    @usableFromInline @exclusivity(unchecked) var result: Outcome
    /// The chain's shared settings; `nil` for plain futures.
    @usableFromInline let context: FutureContext?

    @inlinable
    init(context: FutureContext?) {
        completed = Atomic(false)
        lock = Locked(PendingState())
        result = .failure(pendingResult)
        self.context = context
    }

    /// A pending future that follows `parent`: same context, cancellation reaches `parent`.
    @inlinable
    init<Parent>(following parent: FutureStorage<Parent>) {
        completed = Atomic(false)
        lock = Locked(PendingState(upstream: parent))
        result = .failure(pendingResult)
        context = parent.context
    }

    /// A pending future that waits for several others (`whenAll`, `zip`, `first`).
    @inlinable
    init(upstream: any UpstreamCancellable, context: FutureContext?) {
        completed = Atomic(false)
        lock = Locked(PendingState(upstream: upstream))
        result = .failure(pendingResult)
        self.context = context
    }

    @inlinable
    init(result: Outcome, context: FutureContext? = nil) {
        completed = Atomic(true)
        lock = Locked(PendingState())
        self.result = result
        self.context = context
    }

    @inlinable
    var callbackQueue: DispatchQueue? { context?.callbackQueue }

    /// The result, if the future has completed; lock-free.
    @inlinable
    var completedResult: Outcome? {
        completed.load(ordering: .acquiring) ? result : nil
    }

    /// The result, if the future has completed and a step may run on this thread at once:
    /// the fast path of the operators, which a future with a callback queue never takes.
    @inlinable
    var resultForInlineStep: Outcome? {
        guard completed.load(ordering: .acquiring), context?.callbackQueue == nil else { return nil }
        return result
    }

    /// The result of a future known to be complete: only for continuations, which run after it.
    @inlinable
    var resultOfCompleted: Outcome {
        result
    }

    /// Stores the result and hands back the continuations to run, or `nil` when the future had
    /// already completed (the second result is dropped).
    @inlinable
    func complete(_ newResult: Outcome) -> CallbackList? {
        lock.withLock { state -> CallbackList? in
            guard !completed.load(ordering: .relaxed) else { return nil }
            result = newResult
            completed.store(true, ordering: .releasing)
            // Moved out, not copied: no retain of the continuations just to release them again.
            var waiting = CallbackList()
            swap(&waiting, &state.callbacks)
            state.upstream = nil
            state.cancellationHandler = nil
            return waiting
        }
    }

    /// `complete` for use inside a continuation: the caller's run loop runs what it returns.
    @inlinable
    func completeReturningCallbacks(_ newResult: Outcome) -> CallbackList {
        complete(newResult) ?? CallbackList()
    }

    /// Runs continuations released by a completion from outside a chain: here, or on the
    /// callback queue when the future has one.
    @inlinable
    func runReleased(_ callbacks: CallbackList) {
        guard !callbacks.isEmpty else { return }
        if let callbackQueue {
            callbackQueue.async { callbacks.run() }
        } else {
            callbacks.run()
        }
    }

    /// Completes from outside a chain (a promise, a timer, a cancel).
    @inlinable
    @discardableResult
    func completeAndRun(_ newResult: Outcome) -> Bool {
        guard let waiting = complete(newResult) else { return false }
        runReleased(waiting)
        return true
    }

    /// Completes from a continuation of `source`, which runs on `source`'s queue (or thread): the
    /// released continuations are handed back to run inline when that is where they belong, and
    /// dispatched to this future's own callback queue otherwise.
    @inlinable
    func complete<Source>(_ newResult: Outcome, from source: FutureStorage<Source>) -> CallbackList {
        let queue = callbackQueue
        if queue == nil || queue === source.callbackQueue {
            return completeReturningCallbacks(newResult)
        }
        completeAndRun(newResult)
        return CallbackList()
    }

    /// Adds a continuation, or runs it at once when the result is already there: on this thread,
    /// or on the callback queue when the future has one.
    @inlinable
    func append(_ continuation: @escaping FutureContinuation) {
        if !completed.load(ordering: .acquiring) {
            let added = lock.withLock { state -> Bool in
                guard !completed.load(ordering: .relaxed) else { return false }
                state.callbacks.append(continuation)
                return true
            }
            if added { return }
        }
        if let callbackQueue {
            callbackQueue.async { continuation().run() }
        } else {
            continuation().run()
        }
    }

    /// Points cancellation at a new upstream (a `flatMap` step's inner future).
    @inlinable
    func setUpstream(_ newUpstream: any UpstreamCancellable) {
        let cancelNow = lock.withLock { state -> Bool in
            if state.cancelRequested { return true }
            if !completed.load(ordering: .relaxed) { state.upstream = newUpstream }
            return false
        }
        if cancelNow { _ = newUpstream.cancelFromDownstream() }
    }

    @usableFromInline
    func setCancellationHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { state -> Bool in
            if !completed.load(ordering: .relaxed) {
                state.cancellationHandler = handler
                return false
            }
            return state.wasCancelled
        }
        if runNow { handler() }
    }

    @usableFromInline
    var isCancelled: Bool {
        lock.withLock { $0.wasCancelled }
    }

    /// Returns `true` if this call is what ended the future.
    ///
    /// Cancels the work upstream first, so the whole chain fails with the source's own
    /// cancellation error; if this future is still pending after that (its upstream had already
    /// finished, or it has none), it fails with its own cancellation error.
    @usableFromInline
    @discardableResult
    func cancel() -> Bool {
        let (wasPending, upstreamToCancel) = lock.withLock { state -> (Bool, (any UpstreamCancellable)?) in
            guard !completed.load(ordering: .relaxed) else { return (false, nil) }
            state.cancelRequested = true
            let taken = state.upstream
            state.upstream = nil
            return (true, taken)
        }
        guard wasPending else { return false }
        let cancelledUpstream = upstreamToCancel?.cancelFromDownstream() ?? false

        let error = context?.cancellationError ?? CancellationError()
        let ending = lock.withLock { state -> (CallbackList, (@Sendable () -> Void)?)? in
            guard !completed.load(ordering: .relaxed) else { return nil }
            result = .failure(error)
            completed.store(true, ordering: .releasing)
            let ending = (state.callbacks, state.cancellationHandler)
            state = PendingState()
            state.wasCancelled = true
            return ending
        }
        guard let (waiting, handler) = ending else {
            // Completed meanwhile: by the cancellation this call sent upstream, or by a result
            // that won the race.
            return cancelledUpstream
        }
        handler?()
        runReleased(waiting)
        return true
    }

    @usableFromInline
    func cancelFromDownstream() -> Bool {
        cancel()
    }
}
