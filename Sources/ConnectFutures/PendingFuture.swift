/// The producer side of a future, as a value: what a ``Promise`` keeps, and what a producer that
/// is an object already could keep in one of its stored properties instead of a promise object.
/// (Connect's transfers keep a ``PendingStep``, which runs the request's step as well.)
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

    /// Completes the future, running its observers where they belong (on its callback queue, if
    /// it has one); `false` if it had already completed.
    @inlinable
    @discardableResult
    package func complete(_ result: Result<Value, any Error>) -> Bool {
        storage.completeAndRun(result)
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
