import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// What a test server records, shared by its connections under a lock: the requests, how many
/// connections it accepted, and the open ones (to close them at shutdown).
final class ServerState: Sendable {
    private struct Inner {
        var requests: [RecordedRequest] = []
        var connections = 0
        var open: [ObjectIdentifier: any Channel] = [:]
    }

    private let inner = NIOLockedValueBox(Inner())

    var requests: [RecordedRequest] { inner.withLockedValue { $0.requests } }
    var connectionCount: Int { inner.withLockedValue { $0.connections } }
    var openConnectionCount: Int { inner.withLockedValue { $0.open.count } }

    /// Listens on 127.0.0.1 and a free port; `configure` sets up each accepted connection's
    /// pipeline, given the connection's number (from 1).
    /// Listens on 127.0.0.1 and a free port, or on the Unix domain socket at `unixSocketPath`
    /// (replacing a socket file left there).
    func listen(
        unixSocketPath: String? = nil, configure: @escaping @Sendable (any Channel, Int) throws -> Void
    ) throws -> any Channel {
        var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
        if unixSocketPath == nil {
            bootstrap = bootstrap.serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        }
        bootstrap = bootstrap.childChannelInitializer { [self] channel in
            let connectionID = connectionOpened(channel)
            channel.closeFuture.whenComplete { [self] _ in connectionClosed(channel) }
            return channel.eventLoop.makeCompletedFuture { try configure(channel, connectionID) }
        }
        if let unixSocketPath {
            return try bootstrap.bind(unixDomainSocketPath: unixSocketPath, cleanupExistingSocketFile: true).wait()
        }
        return try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
    }

    private func connectionOpened(_ channel: any Channel) -> Int {
        inner.withLockedValue {
            $0.connections += 1
            $0.open[ObjectIdentifier(channel)] = channel
            return $0.connections
        }
    }

    private func connectionClosed(_ channel: any Channel) {
        _ = inner.withLockedValue { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func record(_ request: RecordedRequest) {
        inner.withLockedValue { $0.requests.append(request) }
    }

    func closeAll() {
        for channel in inner.withLockedValue({ Array($0.open.values) }) { channel.close(promise: nil) }
    }
}

extension Channel {
    /// Closes the connection with a TCP reset instead of a FIN: SO_LINGER with a zero timeout.
    func reset() {
        guard let options = self as? any SocketOptionProvider else {
            close(promise: nil)
            return
        }
        options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in self.close(promise: nil) }
    }
}
