/// The upstream of a future that waits for several others (`whenAll`, `zip`, `first`):
/// cancelling it cancels each of them.
@usableFromInline
final class UpstreamGroup: UpstreamCancellable {
    @usableFromInline let members: [any UpstreamCancellable]

    @usableFromInline
    init(_ members: [any UpstreamCancellable]) {
        self.members = members
    }

    @usableFromInline
    func cancelFromDownstream() -> Bool {
        var cancelledAny = false
        for member in members where member.cancelFromDownstream() { cancelledAny = true }
        return cancelledAny
    }
}
