import Foundation
import NIOCore

/// A server on 127.0.0.1 and a free port (or on a Unix domain socket), running in this process:
/// what ``TestServer`` and ``RawServer`` share. It records every request and counts the
/// connections it accepts.
///
/// `@unchecked Sendable`: a class to inherit from, whose stored properties are constants of
/// `Sendable` types.
public class LocalServer: @unchecked Sendable {
    private let channel: any Channel
    let state: ServerState

    /// The port it listens on (0 on a Unix domain socket).
    public let port: Int
    /// The Unix domain socket it listens on, if not a port.
    public let unixSocketPath: String?

    /// `http://127.0.0.1:<port>`; `http://localhost` on a Unix domain socket (a client that
    /// connects through the socket sends the host as the `Host` header only).
    public var baseURL: URL { URL(string: unixSocketPath == nil ? "http://127.0.0.1:\(port)" : "http://localhost")! }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { state.requests }

    /// How many connections were accepted so far.
    public var connectionCount: Int { state.connectionCount }
    /// The connections open now: accepted and not yet closed by either side.
    public var openConnectionCount: Int { state.openConnectionCount }

    /// Listens; `configure` sets up each accepted connection's pipeline, given the server's
    /// state and the connection's number (from 1).
    init(
        unixSocketPath: String? = nil, configure: @escaping @Sendable (ServerState, any Channel, Int) throws -> Void
    ) throws {
        let state = ServerState()
        self.state = state
        channel = try state.listen(unixSocketPath: unixSocketPath) { channel, connectionID in
            try configure(state, channel, connectionID)
        }
        port = channel.localAddress?.port ?? 0
        self.unixSocketPath = unixSocketPath
    }

    /// Stops listening and closes every connection.
    public func shutdown() {
        try? channel.close().wait()
        state.closeAll()
    }

    deinit {
        channel.close(promise: nil)
        state.closeAll()
    }
}
