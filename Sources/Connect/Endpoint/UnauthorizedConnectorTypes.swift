import ConnectFutures
import Synchronization

/// Connector types known not to be ``AuthorizedConnector``s, so their requests skip the cast: a
/// cast from one protocol existential to another searches the conformance tables every time.
final class UnauthorizedConnectorTypes: Sendable {
    private let types = Locked<Set<ObjectIdentifier>>([])
    /// The type most recently found in `types` or added to it: most requests are of the type the
    /// one before was, and comparing one word read without the lock costs less than taking it
    /// and hashing. A type's conformances never change, so a stale value is still a true one.
    private let lastFound = Atomic<UInt>(0)

    /// The connector's token, if it is an ``AuthorizedConnector`` that has one.
    func authorizationToken(of connector: any Connector) -> AuthorizationToken? {
        let type = ObjectIdentifier(Swift.type(of: connector))
        let bits = UInt(bitPattern: type)
        if lastFound.load(ordering: .relaxed) == bits { return nil }
        if types.withLock({ $0.contains(type) }) {
            lastFound.store(bits, ordering: .relaxed)
            return nil
        }
        guard let authorized = connector as? any AuthorizedConnector else {
            types.withLock { _ = $0.insert(type) }
            lastFound.store(bits, ordering: .relaxed)
            return nil
        }
        return authorized.authorizationToken
    }
}
