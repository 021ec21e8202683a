/// The producer side of a future for a producer that is an object already: a ``Promise``
/// without an object of its own, kept in one of the producer's stored properties. Connect's
/// transfers use it, one allocation a request fewer than a promise.
///
/// The producer completes it once, and calls ``abandonIfPending()`` from its `deinit`, as a
/// promise does from its own: a future nobody can complete any more then fails with
/// ``FutureError/promiseAbandoned`` rather than leave its observers waiting.
///
/// Same package only.
@usableFromInline
package struct PendingFuture<Value: Sendable>: Sendable {
    @usableFromInline let storage: Future<Value>.Storage

    /// A pending future following `context` (see ``Promise/init(context:)``).
    @inlinable
    package init(context: FutureContext?) {
        storage = Future<Value>.Storage(pendingWith: context)
    }

    /// The future this completes.
    @inlinable
    package var future: Future<Value> { Future(storage: storage) }

    /// `true` once the future has completed, by any means (a cancel included).
    @inlinable
    package var isCompleted: Bool { storage.isCompleted }

    /// Completes the future and runs its observers right here, even when the future has a
    /// callback queue: for a producer already running on that queue (see
    /// ``Promise/complete(_:)`` for the usual way). `false` if it had already completed.
    @inlinable
    @discardableResult
    package func completeOnCallbackQueue(_ result: Result<Value, any Error>) -> Bool {
        storage.completeAndRunHere(result)
    }

    /// Completes the future, running its observers where they belong (on its callback queue, if
    /// it has one); `false` if it had already completed.
    @inlinable
    @discardableResult
    package func complete(_ result: Result<Value, any Error>) -> Bool {
        storage.completeAndRun(result)
    }

    /// Tells `observer` when the future is cancelled: no closure is allocated for it.
    package func onCancel(notifying observer: some PromiseCancellationObserver) {
        storage.setCancellationHandler(observer)
    }

    /// For the producer's `deinit`: fails the future with ``FutureError/promiseAbandoned`` if
    /// nothing completed it. Checked first, and the failure built out of line: building it
    /// needs `Result`'s generic metadata, which a completed future (almost every one) should
    /// not pay for.
    @inlinable
    package func abandonIfPending() {
        if !storage.isCompleted { failAbandoned() }
    }

    @usableFromInline
    @inline(never)
    func failAbandoned() {
        storage.completeAndRun(.failure(FutureError.promiseAbandoned))
    }
}
