import Dispatch
import Synchronization

/// What a derived future holds on to so that cancelling it reaches the work it waits for.
@usableFromInline
protocol UpstreamCancellable: AnyObject, Sendable {
    /// Cancels; `true` if this call is what ended it.
    func cancelFromDownstream() -> Bool
}

/// The shared state behind a `Future` and its `Promise`.
///
/// `@unchecked Sendable`: every mutable field is guarded by `lock`. `result` is written once, under
/// the lock, before `completed` is set with release ordering; once an acquiring load of `completed`
/// sees `true`, `result` never changes again and is read without the lock. That makes observing,
/// mapping or awaiting an already-completed future lock-free.
@usableFromInline
final class FutureStorage<Value: Sendable>: UpstreamCancellable, @unchecked Sendable {
    @usableFromInline let completed: Atomic<Bool>
    @usableFromInline let lock = Locked<Void>(())
    @usableFromInline var result: Result<Value, any Error>?
    /// Continuations waiting for the result; emptied when it arrives.
    @usableFromInline var callbacks = CallbackList()
    /// The future this one waits for, so `cancel()` can reach it; dropped at completion, which
    /// keeps a completed chain from holding the futures it came from.
    @usableFromInline var upstream: (any UpstreamCancellable)?
    /// The producer's cancellation hook; see `Promise.onCancel`.
    @usableFromInline var cancellationHandler: (@Sendable () -> Void)?
    /// The error a cancelled future fails with; `nil` means `CancellationError()`. A chain
    /// inherits its source's, so every step fails with the same error whichever is cancelled.
    @usableFromInline let cancellationError: (any Error)?
    /// Set when the future ended by `cancel()`, so a cancellation handler installed late still runs.
    @usableFromInline var wasCancelled = false
    /// When set, every callback runs on this queue: completions from outside a chain hand their
    /// continuations to it, and a continuation added after completion is dispatched to it.
    /// Steps inside a chain complete their successors inline, since they already run there.
    @usableFromInline let callbackQueue: DispatchQueue?
    /// Set as soon as `cancel()` starts: an upstream attached after that (a `flatMap` step starting
    /// its inner future while the cancel travels) is cancelled at once instead of left running.
    @usableFromInline var cancelRequested = false

    @inlinable
    init(callbackQueue: DispatchQueue? = nil, cancellationError: (any Error)? = nil) {
        completed = Atomic(false)
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
    }

    /// A pending future that follows `parent`: same callback queue, same cancellation error.
    @inlinable
    init<Parent>(following parent: FutureStorage<Parent>) {
        completed = Atomic(false)
        upstream = parent
        callbackQueue = parent.callbackQueue
        cancellationError = parent.cancellationError
    }

    /// A pending future that waits for several others (`whenAll`, `zip`, `first`).
    @inlinable
    init(upstream: any UpstreamCancellable, callbackQueue: DispatchQueue?, cancellationError: (any Error)? = nil) {
        completed = Atomic(false)
        self.upstream = upstream
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
    }

    @inlinable
    init(result: Result<Value, any Error>, callbackQueue: DispatchQueue? = nil) {
        self.result = result
        completed = Atomic(true)
        self.callbackQueue = callbackQueue
        cancellationError = nil
    }

    /// The result, if the future has completed; lock-free.
    @inlinable
    var completedResult: Result<Value, any Error>? {
        completed.load(ordering: .acquiring) ? result : nil
    }

    /// The result, if the future has completed and a step may run on this thread at once:
    /// the fast path of the operators, which a bound future never takes.
    @inlinable
    var resultForInlineStep: Result<Value, any Error>? {
        callbackQueue == nil ? completedResult : nil
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
    func completeAndRun(_ newResult: Result<Value, any Error>) -> Bool {
        guard let waiting = complete(newResult) else { return false }
        runReleased(waiting)
        return true
    }

    /// The result of a future known to be complete: only for continuations, which run after it.
    @inlinable
    var resultOfCompleted: Result<Value, any Error> {
        result!
    }

    /// Stores the result and hands back the continuations to run, or `nil` when the future had
    /// already completed (the second result is dropped).
    @inlinable
    func complete(_ newResult: Result<Value, any Error>) -> CallbackList? {
        lock.withLock { _ -> CallbackList? in
            guard result == nil else { return nil }
            result = newResult
            completed.store(true, ordering: .releasing)
            let waiting = callbacks
            callbacks = CallbackList()
            upstream = nil
            cancellationHandler = nil
            return waiting
        }
    }

    /// `complete` for use inside a continuation: the caller's run loop runs what it returns.
    @inlinable
    func completeReturningCallbacks(_ newResult: Result<Value, any Error>) -> CallbackList {
        complete(newResult) ?? CallbackList()
    }

    /// Completes from a continuation of `source`, which runs on `source`'s queue (or thread): the
    /// released continuations are handed back to run inline when that is where they belong, and
    /// dispatched to this future's own callback queue otherwise.
    @inlinable
    func complete<Source>(_ newResult: Result<Value, any Error>, from source: FutureStorage<Source>) -> CallbackList {
        if callbackQueue == nil || callbackQueue === source.callbackQueue {
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
            let added = lock.withLock { _ -> Bool in
                guard result == nil else { return false }
                callbacks.append(continuation)
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
        let cancelNow = lock.withLock { _ -> Bool in
            guard result == nil || cancelRequested else { return false }
            if cancelRequested { return true }
            upstream = newUpstream
            return false
        }
        if cancelNow { _ = newUpstream.cancelFromDownstream() }
    }

    @usableFromInline
    func setCancellationHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { _ -> Bool in
            if result == nil {
                cancellationHandler = handler
                return false
            }
            return wasCancelled
        }
        if runNow { handler() }
    }

    @usableFromInline
    var isCancelled: Bool {
        lock.withLock { _ in wasCancelled }
    }

    /// Returns `true` if this call is what ended the future.
    ///
    /// Cancels the work upstream first, so the whole chain fails with the source's own
    /// cancellation error; if this future is still pending after that (its upstream had already
    /// finished, or it has none), it fails with its own cancellation error.
    @usableFromInline
    @discardableResult
    func cancel() -> Bool {
        let (wasPending, upstreamToCancel) = lock.withLock { _ -> (Bool, (any UpstreamCancellable)?) in
            guard result == nil else { return (false, nil) }
            cancelRequested = true
            let taken = upstream
            upstream = nil
            return (true, taken)
        }
        guard wasPending else { return false }
        let cancelledUpstream = upstreamToCancel?.cancelFromDownstream() ?? false

        let ending = lock.withLock { _ -> (CallbackList, (@Sendable () -> Void)?)? in
            guard result == nil else { return nil }
            result = .failure(cancellationError ?? CancellationError())
            wasCancelled = true
            completed.store(true, ordering: .releasing)
            let waiting = callbacks
            let handler = cancellationHandler
            callbacks = CallbackList()
            cancellationHandler = nil
            return (waiting, handler)
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
