/// A cancellation handler written as a closure.
final class ClosureCancellation: PromiseCancellationObserver {
    let handler: @Sendable () -> Void

    init(_ handler: @escaping @Sendable () -> Void) {
        self.handler = handler
    }

    func promiseWasCancelled() {
        handler()
    }
}
