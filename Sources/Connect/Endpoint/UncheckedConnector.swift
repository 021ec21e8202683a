/// A connector kept for later (a ``MockTransport`` registration, an event stream that
/// reconnects), read from whichever thread sends.
/// `Connector` is not `Sendable` (the seeds' connectors are plain enums and structs); it is
/// only read.
struct UncheckedConnector: @unchecked Sendable {
    let connector: any Connector

    init(_ connector: any Connector) {
        self.connector = connector
    }
}
