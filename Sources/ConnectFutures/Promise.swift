import Dispatch

/// The producer side of a `Future`: whoever does the work completes the promise once.
///
/// ```swift
/// let promise = Promise<Int>()
/// DispatchQueue.global().async { promise.succeed(42) }
/// promise.future.observe { print($0) }
/// ```
///
/// A future completes exactly once: `succeed`, `fail` and `complete` return `false` and change
/// nothing when it has already completed (or was cancelled).
///
/// A promise that is released without being completed fails its future with
/// ``FutureError/promiseAbandoned``, so observers never wait forever for a result that cannot come,
/// and nothing they captured is kept alive past that point.
public final class Promise<Value: Sendable>: Sendable {
    @usableFromInline let storage: Future<Value>.Storage

    /// Creates a pending promise.
    ///
    /// - Parameters:
    ///   - cancellationError: the error the future, and every future chained from it, fails with
    ///     when cancelled; `CancellationError()` when `nil`.
    ///   - callbackQueue: when given, every observer and step of the future, and of the futures
    ///     chained from it, runs on this queue, whichever thread completes the promise and
    ///     whenever they are added. Without it they run on the completing thread (or at once,
    ///     if added after completion).
    @inlinable
    public convenience init(cancellationError: (any Error)? = nil, callbackQueue: DispatchQueue? = nil) {
        let context =
            cancellationError == nil && callbackQueue == nil
            ? nil : FutureContext(callbackQueue: callbackQueue, cancellationError: cancellationError)
        self.init(context: context)
    }

    /// Creates a pending promise whose future, and every future chained from it, follows
    /// `context`; share one context between many promises to save an allocation each.
    @inlinable
    public init(context: FutureContext?) {
        storage = Future<Value>.Storage(pendingWith: context)
    }

    deinit {
        // Checked first, and the failure built out of line: a deinit is not specialized, and
        // building the failure needs `Result`'s generic metadata, a hash-table lookup that a
        // completed future (almost every one) should not pay for.
        if !storage.isCompleted { failAbandoned() }
    }

    /// Not `private`: declared so, it made freeing every promise cost more, for reasons of the
    /// optimizer's (`FutureBenchmark --profile map-pending`).
    @usableFromInline
    @inline(never)
    func failAbandoned() {
        storage.completeAndRun(.failure(FutureError.promiseAbandoned))
    }

    /// The future this promise completes.
    @inlinable
    public var future: Future<Value> { Future(storage: storage) }

    /// Completes the future with a value.
    /// - Returns: `false` if the future had already completed.
    @inlinable
    @discardableResult
    public func succeed(_ value: Value) -> Bool {
        complete(.success(value))
    }

    /// Fails the future.
    /// - Returns: `false` if the future had already completed.
    @inlinable
    @discardableResult
    public func fail(_ error: any Error) -> Bool {
        complete(.failure(error))
    }

    /// Completes the future with a result, running its observers on this thread (or on the
    /// promise's callback queue, if it has one).
    /// - Returns: `false` if the future had already completed.
    @inlinable
    @discardableResult
    public func complete(_ result: Result<Value, any Error>) -> Bool {
        storage.completeAndRun(result)
    }

    /// Completes this promise with whatever `other` completes with; cancelling this promise's
    /// future cancels `other`.
    public func complete(with other: Future<Value>) {
        storage.setUpstream(other.storage)
        other.storage.append { [storage] in
            storage.complete(other.storage.resultOfCompleted, from: other.storage)
        }
    }

    /// `true` once the future has completed, by any means.
    public var isCompleted: Bool { storage.isCompleted }

    /// `true` if the future was cancelled before the promise completed it.
    public var isCancelled: Bool { storage.isCancelled }

    /// Registers the work to stop when the future is cancelled, e.g. aborting a download.
    ///
    /// The handler runs once, on the thread that calls `cancel()`, before the future's observers.
    /// If the future was already cancelled, it runs at once; if it completed any other way, never.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        storage.setCancellationHandler(ClosureCancellation(handler))
    }
}
