/// Told when the future of a promise it watches is cancelled; see
/// ``PendingStep/onCancel(notifying:)``.
///
/// To the future it is the top of the chain's cancellation path, so it is kept in the same field
/// as a step's upstream, and cancelling it tells the observer.
@usableFromInline
package protocol PromiseCancellationObserver: UpstreamCancellable {
    func promiseWasCancelled()
}

extension PromiseCancellationObserver {
    @usableFromInline
    package func cancelFromDownstream() -> Bool {
        promiseWasCancelled()
        return true
    }
}
