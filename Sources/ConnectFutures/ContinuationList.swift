/// The continuations of a future that has more than one, in the order they were added: the
/// target of the single continuation the future keeps (see `FutureCore.waiting`).
///
/// Only the run loops take it apart (`FutureCore.runWaitingOfMany()`), so its own continuation
/// is never run. `items` changes only under the lock of the future that holds it, and after
/// completion belongs to the thread that completed that future.
@usableFromInline
final class ContinuationList: @unchecked Sendable {
    @usableFromInline var items: [FutureContinuation]

    init(_ items: [FutureContinuation]) {
        self.items = items
    }

    /// The continuation that stands for `items` in a future's `waiting` field.
    static func continuation(running items: [FutureContinuation]) -> FutureContinuation {
        FutureContinuation(target: ContinuationList(items)) { _, _ in
            preconditionFailure("a future's list of continuations runs through FutureCore.runWaitingOfMany()")
        }
    }
}
