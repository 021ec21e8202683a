/// What a derived future holds on to so that cancelling it reaches the work it waits for: the
/// future it follows, a group of them, or the producer's cancellation handler.
@usableFromInline
package protocol UpstreamCancellable: AnyObject, Sendable {
    /// Cancels; `true` if this call is what ended it.
    func cancelFromDownstream() -> Bool
}
