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

    /// Creates a context.
    public init(callbackQueue: DispatchQueue? = nil, cancellationError: (any Error)? = nil) {
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
        self.settings = []
    }

    /// Creates a context that also carries `settings` (at most one of each type).
    package init(callbackQueue: DispatchQueue?, cancellationError: (any Error)?, settings: [any FutureContextSetting]) {
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
        self.settings = settings
    }

    /// The setting of type `Setting` this context carries, if any.
    package func setting<Setting: FutureContextSetting>(_ type: Setting.Type) -> Setting? {
        for setting in settings {
            if let found = setting as? Setting { return found }
        }
        return nil
    }

    /// This context with its callbacks on `queue`, every other setting kept.
    func delivering(on queue: DispatchQueue) -> FutureContext {
        FutureContext(callbackQueue: queue, cancellationError: cancellationError, settings: settings)
    }
}

/// A value a module built on the futures keeps in a ``FutureContext`` for a whole chain, found
/// by its type.
package protocol FutureContextSetting: Sendable {}
