import ConnectFutures

/// Connector types known not to be ``AuthorizedConnector``s, so their requests skip the cast: a
/// cast from one protocol existential to another searches the conformance tables every time.
final class UnauthorizedConnectorTypes: Sendable {
    private let types = Locked<Set<ObjectIdentifier>>([])

    /// The connector's token, if it is an ``AuthorizedConnector`` that has one.
    func authorizationToken(of connector: any Connector) -> AuthorizationToken? {
        let type = ObjectIdentifier(Swift.type(of: connector))
        if types.withLock({ $0.contains(type) }) { return nil }
        guard let authorized = connector as? any AuthorizedConnector else {
            types.withLock { _ = $0.insert(type) }
            return nil
        }
        return authorized.authorizationToken
    }
}
