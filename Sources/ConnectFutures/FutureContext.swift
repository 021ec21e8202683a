import Dispatch

/// Settings a whole chain of futures shares: made once by a producer, handed down to every
/// future chained from its promise.
///
/// ```swift
/// let context = FutureContext(callbackQueue: .main, cancellationError: MyError.cancelled)
/// let promise = Promise<Data>(context: context)
/// ```
/// One context can serve any number of promises, e.g. every promise of one client.
public final class FutureContext: Sendable {
    /// Where every observer and step of the chain runs, whichever thread completes it and
    /// whenever they are added; `nil` runs them on the completing thread (or at once, when added
    /// after completion).
    public let callbackQueue: DispatchQueue?
    /// The error a cancelled future of the chain fails with; `CancellationError()` when `nil`.
    public let cancellationError: (any Error)?
    /// What the modules built on the futures keep for the chain, one value of each type: how
    /// `decoded(toType:)` decodes, for instance (ConnectJSON). The futures never read them.
    let settings: [any FutureContextSetting]
    /// The executor a task may prefer while it awaits a pending future of the chain (`value`),
    /// unless it already prefers one (see ``AwaitingExecutor``); `nil` leaves the task where it is.
    package let awaitingExecutor: (any AwaitingExecutor)?

    /// Creates a context.
    public init(callbackQueue: DispatchQueue? = nil, cancellationError: (any Error)? = nil) {
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
        self.settings = []
        self.awaitingExecutor = nil
    }

    /// Creates a context that also carries `settings` (at most one of each type) and, if not
    /// `nil`, the executor tasks prefer while they await.
    package init(
        callbackQueue: DispatchQueue?, cancellationError: (any Error)?, settings: [any FutureContextSetting],
        awaitingExecutor: (any AwaitingExecutor)? = nil
    ) {
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
        self.settings = settings
        self.awaitingExecutor = awaitingExecutor
    }

    /// The setting of type `Setting` this context carries, if any.
    package func setting<Setting: FutureContextSetting>(_ type: Setting.Type) -> Setting? {
        for setting in settings {
            if let found = setting as? Setting { return found }
        }
        return nil
    }

    /// This context with its callbacks on `queue`, every other setting kept but the awaiting
    /// executor, which serves the producer's own completions only.
    func delivering(on queue: DispatchQueue) -> FutureContext {
        FutureContext(callbackQueue: queue, cancellationError: cancellationError, settings: settings)
    }

    /// This context, with tasks that await its futures preferring `executor` (see
    /// `awaitingExecutor`).
    package func awaiting(on executor: any AwaitingExecutor) -> FutureContext {
        FutureContext(
            callbackQueue: callbackQueue, cancellationError: cancellationError, settings: settings,
            awaitingExecutor: executor)
    }
}

/// A value a module built on the futures keeps in a ``FutureContext`` for a whole chain, found
/// by its type.
package protocol FutureContextSetting: Sendable {}
