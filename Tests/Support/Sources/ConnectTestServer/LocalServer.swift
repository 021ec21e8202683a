import Foundation
import NIOCore

/// A server on 127.0.0.1 and a free port, running in this process: what ``TestServer`` and
/// ``RawServer`` share. It records every request and counts the connections it accepts.
///
/// `@unchecked Sendable`: a class to inherit from, whose stored properties are constants of
/// `Sendable` types.
public class LocalServer: @unchecked Sendable {
    private let channel: any Channel
    let state: ServerState

    /// The port it listens on.
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { state.requests }

    /// How many connections were accepted so far.
    public var connectionCount: Int { state.connectionCount }

    /// Listens; `configure` sets up each accepted connection's pipeline, given the server's
    /// state and the connection's number (from 1).
    init(configure: @escaping @Sendable (ServerState, any Channel, Int) throws -> Void) throws {
        let state = ServerState()
        self.state = state
        channel = try state.listen { channel, connectionID in try configure(state, channel, connectionID) }
        port = channel.localAddress?.port ?? 0
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
