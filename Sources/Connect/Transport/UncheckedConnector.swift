/// A connector kept by a ``MockTransport`` registration, read from whichever thread sends.
/// `Connector` is not `Sendable` (the seeds' connectors are plain enums and structs); the mock
/// only reads it.
struct UncheckedConnector: @unchecked Sendable {
    let connector: any Connector

    init(_ connector: any Connector) {
        self.connector = connector
    }
}
