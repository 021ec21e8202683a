import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The transport's own record of the connections libcurl opens: their sockets, their ports (how
/// libcurl names a connection to a callback), and whether the last exchange on each was HTTP/1.
///
/// libcurl before 8.0 (7.88 among them) reuses an idle HTTP/1 connection with bytes already
/// waiting on it (``LibcurlDefects/reusesConnectionsWithBytesWaiting``), so a second,
/// unrequested response sent on it would be read as the answer to the next request. Before a
/// request goes out on a connection, ``ConnectionChoice`` asks here what it needs to decide
/// (whether anything is waiting on one that carried an HTTP/1 exchange: ``hasUnreadBytes(on:)``;
/// HTTP/2 connections have frames for other streams waiting all the time), and the transfer
/// carries out its decision (``shutDown(_:)``, say). This records and answers; it does not
/// decide.
///
/// Used by the transfer thread alone.
final class ConnectionTracker {
    /// A connection's local and remote port in one number: what libcurl's callbacks give.
    typealias Ports = Int

    static func ports(local: Int, remote: Int) -> Ports { local << 16 | remote }

    /// What ``ConnectionChoice`` asks of the connection libcurl chose, answered by the tracker
    /// it sits in: a connection through a Unix domain socket is known by what the transfer
    /// opened, any other by its ports.
    struct ChosenConnection: ConnectionChoice.Facts {
        let connections: ConnectionTracker
        let ports: ConnectionTracker.Ports
        let unixSocketPath: String?
        let opened: (socket: Int32, serial: UInt32)?

        func socket() -> ConnectionChoice.Socket {
            if let unixSocketPath { return connections.unixConnection(through: unixSocketPath, opened: opened) }
            return connections.socket(for: ports).map { .known($0) } ?? .untracked
        }

        func hasUnreadBytes(_ socket: Int32) -> Bool { connections.hasUnreadBytes(on: socket) }

        func allowsAnotherExchange(_ socket: Int32) -> Bool { connections.allowsAnotherExchange(on: socket) }

        func choose(_ socket: Int32) -> (isNew: Bool, speaksH2C: Bool) { connections.choose(socket) }
    }

    /// libcurl's socket-closing callback (`CURLOPT_CLOSESOCKETFUNCTION`), with the tracker as its
    /// context: the tracker forgets the socket (``closing(_:)``), then it is closed. (The callback
    /// for a socket opened is the transfer's: `CurlTransfer.socketOpenedCallback`.)
    static let socketClosingCallback: ccurl_closesocket_callback = { context, socket in
        Unmanaged<ConnectionTracker>.fromOpaque(context!).takeUnretainedValue().closing(socket)
        return close(socket)
    }

    /// One open connection. Its fields are plain values (its strings live in ``h2cOrigins`` and
    /// ``unixSocketPaths``), so that reading an entry of ``connections``, several times a request,
    /// is a plain copy rather than a call through the runtime's generic value witnesses.
    private struct Connection {
        /// Tells this connection apart from a later one on the same descriptor.
        let serial: UInt32
        var ports: Ports?
        var lastExchangeWasHTTP1 = false
        /// Transfers that went out on it and have not ended.
        var exchangesInFlight = 0
        /// A response head on it came from HTTP/2 frames (see ``provedMultiplexing(_:)``).
        var multiplexingProven = false
        /// A transfer went out on it already.
        var wasChosen = false
        /// It speaks HTTP/2 with prior knowledge, to its origin in ``h2cOrigins``, once a
        /// transfer opened it so.
        var speaksH2C = false
        /// An exchange went out on it (see ``exchangeStarted(on:)``).
        var carriedAnExchange = false

        /// It carried an exchange and carries none now.
        var isIdle: Bool { carriedAnExchange && exchangesInFlight == 0 }

        /// A head came on it from HTTP/2 frames, or it speaks h2c.
        var multiplexes: Bool { multiplexingProven || speaksH2C }
    }

    /// Where origins advertised HTTP/3 alternatives (`Alt-Svc`), when the client follows them.
    let alternativeServices: AlternativeServiceCache?

    init(alternativeServices: AlternativeServiceCache? = nil, socketWatch: MultiSocketWatch? = nil) {
        self.alternativeServices = alternativeServices
        self.socketWatch = socketWatch
    }

    /// Which origins have h2c connections, and how transfers ask for them.
    @exclusivity(unchecked) var priorKnowledge = PriorKnowledgeConnections()
    /// Which origins multiplex, and which transfer opens a new connection to one while others
    /// wait to share it.
    @exclusivity(unchecked) var openings = SharedConnectionOpenings()

    // `@exclusivity(unchecked)`: the transfer thread alone touches these, one access at a time.
    /// Open sockets, indexed by descriptor (small numbers, so an array).
    @exclusivity(unchecked) private var connections: [Connection?] = []
    /// Descriptors by ports, for the sockets whose ports are known.
    @exclusivity(unchecked) private var descriptors = SocketsByPorts()
    @exclusivity(unchecked) private var nextSerial: UInt32 = 0
    // Checked as usual: touched only when an h2c or Unix socket connection opens or closes, not
    // for every request.
    /// The origin each h2c connection speaks to, by descriptor.
    private var h2cOrigins: [Int32: String] = [:]
    /// The Unix domain socket each connection through one goes through, by descriptor.
    private var unixSocketPaths: [Int32: String] = [:]
    /// A response head claimed HTTP/2 on a connection that speaks HTTP/1 (and was refused):
    /// libcurl 7.88 believed it and may now share HTTP/1 connections to that origin as if they
    /// multiplexed, so from here on a connection must prove it multiplexes before it carries a
    /// second exchange (see ``ConnectionSharing``).
    @exclusivity(unchecked) var sawHTTP2Claim = false
    /// The loop's watch of its sockets, told of each connection's socket opened, established
    /// (its first exchange) and closing, so that an idle connection's socket can stay in its
    /// epoll set (``EpollRegistration``).
    let socketWatch: MultiSocketWatch?

    /// libcurl created `socket` for a connection, through the Unix domain socket at
    /// `unixSocketPath` if it is one. Returns the connection's serial.
    @discardableResult
    func opened(_ socket: Int32, unixSocketPath: String? = nil) -> UInt32? {
        guard socket >= 0 else { return nil }
        forget(socket)
        socketWatch?.connectionOpened(socket)
        connections.extend(toCover: Int(socket), with: nil)
        nextSerial &+= 1
        connections[Int(socket)] = Connection(serial: nextSerial)
        if let unixSocketPath { unixSocketPaths[socket] = unixSocketPath }
        return nextSerial
    }

    /// The connection through the Unix domain socket at `path` that a transfer's request is about
    /// to go out on, which libcurl's pre-request callback cannot name: such a connection has no
    /// ports. The one the transfer opened (`opened`, with its serial), or else the only
    /// connection through that path libcurl can be reusing: one that is idle or multiplexes,
    /// while every exchange in flight is on a connection known here. When several could be, the
    /// idle ones among them (see ``ConnectionChoice``).
    func unixConnection(through path: String, opened: (socket: Int32, serial: UInt32)?) -> ConnectionChoice.Socket {
        if let opened, Int(opened.socket) < connections.count, let connection = connections[Int(opened.socket)],
            connection.serial == opened.serial, !connection.carriedAnExchange
        {
            return .known(opened.socket)
        }
        let reusable = connections.indices.lazy.filter {
            guard let connection = self.connections[$0], self.unixSocketPaths[Int32($0)] == path else { return false }
            return connection.isIdle || connection.multiplexes
        }.map { Int32($0) }
        if let only = reusable.first, reusable.dropFirst().isEmpty { return .known(only) }
        return .ambiguous(idle: reusable.filter { self.connections[Int($0)]?.isIdle == true })
    }

    /// Shuts the connection of `socket` down, so that libcurl never reuses it (it closes it when
    /// it next looks).
    func shutDown(_ socket: Int32) {
        shutdown(socket, Int32(SHUT_RDWR))
        guard Int(socket) < connections.count else { return }
        connections[Int(socket)]?.lastExchangeWasHTTP1 = false
    }

    /// libcurl is closing `socket`.
    func closing(_ socket: Int32) {
        forget(socket)
        socketWatch?.connectionClosing(socket)
    }

    private func forget(_ socket: Int32) {
        guard socket >= 0, Int(socket) < connections.count, let connection = connections[Int(socket)] else { return }
        if let ports = connection.ports { descriptors.remove(socket, for: ports) }
        if connection.speaksH2C, let origin = h2cOrigins.removeValue(forKey: socket) {
            priorKnowledge.closed(to: origin)
        }
        if !unixSocketPaths.isEmpty { unixSocketPaths[socket] = nil }
        connections[Int(socket)] = nil
    }

    /// A transfer is about to go out on the connection of `socket`. Returns whether the
    /// connection is new (no transfer went out on it before) and whether it speaks h2c.
    func choose(_ socket: Int32) -> (isNew: Bool, speaksH2C: Bool) {
        guard Int(socket) < connections.count, let connection = connections[Int(socket)] else { return (true, false) }
        connections[Int(socket)]?.wasChosen = true
        return (!connection.wasChosen, connection.speaksH2C)
    }

    /// The new connection of `socket` speaks HTTP/2 with prior knowledge to `origin`.
    func openedH2C(_ socket: Int32, to origin: String) {
        guard Int(socket) < connections.count, connections[Int(socket)] != nil,
            connections[Int(socket)]?.speaksH2C == false
        else { return }
        connections[Int(socket)]?.speaksH2C = true
        h2cOrigins[socket] = origin
        priorKnowledge.opened(to: origin)
        openings.multiplexes(origin)
    }

    /// Whether a transfer may go out on the connection of `socket` now, by
    /// ``ConnectionSharing/allowsAnotherExchange(inFlight:multiplexingProven:sawHTTP2Claim:)``.
    func allowsAnotherExchange(on socket: Int32) -> Bool {
        guard sawHTTP2Claim, Int(socket) < connections.count, let connection = connections[Int(socket)] else {
            return true
        }
        return ConnectionSharing.allowsAnotherExchange(
            inFlight: connection.exchangesInFlight, multiplexingProven: connection.multiplexes,
            sawHTTP2Claim: sawHTTP2Claim)
    }

    /// A transfer goes out on the connection of `socket`; returns the connection's serial, to
    /// hand back to ``exchangeLeft(_:serial:)`` when the transfer ends or leaves it.
    func exchangeStarted(on socket: Int32) -> UInt32? {
        guard Int(socket) < connections.count, connections[Int(socket)] != nil else { return nil }
        if !connections[Int(socket)]!.carriedAnExchange { socketWatch?.connectionEstablished(socket) }
        connections[Int(socket)]!.exchangesInFlight += 1
        connections[Int(socket)]!.carriedAnExchange = true
        return connections[Int(socket)]!.serial
    }

    /// A transfer that went out on the connection of `socket` with `serial` ended or left it.
    /// Nothing, if that connection closed meanwhile (its descriptor may carry another).
    func exchangeLeft(_ socket: Int32, serial: UInt32) {
        guard Int(socket) < connections.count, connections[Int(socket)]?.serial == serial else { return }
        connections[Int(socket)]!.exchangesInFlight -= 1
    }

    /// A response head on the connection of `socket`, to `origin`, was decoded from HTTP/2
    /// frames: the connection multiplexes, and so does the origin. `origin` is read only for a
    /// connection's first such head.
    func provedMultiplexing(_ socket: Int32, to origin: () -> String) {
        guard Int(socket) < connections.count, connections[Int(socket)] != nil,
            !connections[Int(socket)]!.multiplexingProven
        else { return }
        connections[Int(socket)]!.multiplexingProven = true
        openings.multiplexes(origin())
    }

    /// Whether the connection of `socket` multiplexes: a head came on it from HTTP/2 frames, or
    /// it speaks h2c.
    func multiplexes(_ socket: Int32) -> Bool {
        guard Int(socket) < connections.count, let connection = connections[Int(socket)] else { return false }
        return connection.multiplexes
    }

    /// An exchange finished on the connection of `socket`.
    func exchangeFinished(on socket: Int32, isHTTP1: Bool) {
        guard Int(socket) < connections.count else { return }
        connections[Int(socket)]?.lastExchangeWasHTTP1 = isHTTP1
    }

    /// Whether the connection of `socket` last carried an HTTP/1 exchange and has bytes waiting
    /// that nobody asked for: the loop's epoll set says none are (one look a pass for every
    /// connection chosen in it: ``MultiSocketWatch/idleConnectionIsQuiet(_:)``), or else a peek
    /// at the socket (the bytes stay) says whether they are.
    func hasUnreadBytes(on socket: Int32) -> Bool {
        guard Int(socket) < connections.count, connections[Int(socket)]?.lastExchangeWasHTTP1 == true else {
            return false
        }
        if socketWatch?.idleConnectionIsQuiet(socket) == true { return false }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// The socket of the connection with `ports`; learnt the first time it is asked for, from
    /// the sockets whose ports are not known yet (a connection's ports are known once it is
    /// connected).
    func socket(for ports: Ports) -> Int32? {
        if let socket = descriptors[ports] { return socket }
        for index in connections.indices where connections[index] != nil && connections[index]?.ports == nil {
            let socket = Int32(index)
            guard let local = Self.port(of: socket, getsockname), let remote = Self.port(of: socket, getpeername) else {
                continue
            }
            connections[index]?.ports = Self.ports(local: local, remote: remote)
            descriptors.set(socket, for: Self.ports(local: local, remote: remote))
        }
        return descriptors[ports]
    }

    /// The port of one end of `socket`: `name` is `getsockname` or `getpeername`.
    private static func port(
        of socket: Int32, _ name: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { name(socket, $0, &length) == 0 }
        }
        guard found else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}
