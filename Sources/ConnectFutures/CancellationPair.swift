/// The cancellation link of a promise that has both an upstream (`Promise.complete(with:)`) and
/// a producer's handler (`Promise.onCancel`): rare, so it costs an allocation rather than a
/// second field in every pending future.
@usableFromInline
final class CancellationPair: UpstreamCancellable {
    @usableFromInline let upstream: any UpstreamCancellable
    @usableFromInline let handler: any UpstreamCancellable

    @usableFromInline
    init(upstream: any UpstreamCancellable, handler: any UpstreamCancellable) {
        self.upstream = upstream
        self.handler = handler
    }

    /// Not called: a future takes the pair apart when it is cancelled.
    @usableFromInline
    func cancelFromDownstream() -> Bool {
        upstream.cancelFromDownstream()
    }
}
