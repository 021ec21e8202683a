import Synchronization

/// What a derived future holds on to so that cancelling it reaches the work it waits for.
@usableFromInline
protocol UpstreamCancellable: AnyObject, Sendable {
    func cancelFromDownstream()
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
    @usableFromInline let lock = Mutex<Void>(())
    @usableFromInline var result: Result<Value, any Error>?
    /// Continuations waiting for the result; emptied when it arrives.
    @usableFromInline var callbacks = CallbackList()
    /// The future this one waits for, so `cancel()` can reach it; dropped at completion, which
    /// keeps a completed chain from holding the futures it came from.
    @usableFromInline var upstream: (any UpstreamCancellable)?
    /// The producer's cancellation hook; see `Promise.onCancel`.
    @usableFromInline var cancellationHandler: (@Sendable () -> Void)?
    /// The error a cancelled future fails with; `nil` means `CancellationError()`.
    @usableFromInline var cancellationError: (any Error)?
    /// Set when the future ended by `cancel()`, so a cancellation handler installed late still runs.
    @usableFromInline var wasCancelled = false
    /// Set as soon as `cancel()` starts: an upstream attached after that (a `flatMap` step starting
    /// its inner future while the cancel travels) is cancelled at once instead of left running.
    @usableFromInline var cancelRequested = false

    @inlinable
    init() {
        completed = Atomic(false)
    }

    @inlinable
    init(upstream: any UpstreamCancellable) {
        completed = Atomic(false)
        self.upstream = upstream
    }

    @inlinable
    init(result: Result<Value, any Error>) {
        self.result = result
        completed = Atomic(true)
    }

    /// The result, if the future has completed; lock-free.
    @inlinable
    var completedResult: Result<Value, any Error>? {
        completed.load(ordering: .acquiring) ? result : nil
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

    /// Adds a continuation, or runs it at once on this thread when the result is already there.
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
        continuation().run()
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
        if cancelNow { newUpstream.cancelFromDownstream() }
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
    func setCancellationError(_ error: any Error) {
        lock.withLock { _ in cancellationError = error }
    }

    @usableFromInline
    var isCancelled: Bool {
        lock.withLock { _ in wasCancelled }
    }

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
        upstreamToCancel?.cancelFromDownstream()

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
        if let (waiting, handler) = ending {
            handler?()
            waiting.run()
        }
        return true
    }

    @usableFromInline
    func cancelFromDownstream() {
        cancel()
    }
}
