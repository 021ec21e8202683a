import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The connection a transfer goes out on: libcurl's choice checked as it is made (a socket
/// opened, a connection chosen), and where the transfer starts over when it must.
extension CurlTransfer {
    /// Rewinds the body for the transfer to run again on its handle reset, before
    /// ``configure(_:again:)``: false when the body cannot go out again (a one-time stream), and
    /// the handle keeps its options instead. libcurl rewinds a multipart body itself.
    func rewindsForReset() -> Bool {
        bodyReader?.seek(to: 0) ?? true
    }

    /// The transfer starts over on `connection`: nothing of the response arrived on the last.
    func prepareForRestart(on handle: CurlEasyHandle, _ connection: ResendDecision.RestartConnection) {
        state.startsOver()
        leaveConnection(handle.connections)
        connectionSocket = nil
        openedConnection = nil
        received?.empty()
        settlePriorKnowledgeAsk(handle.connections)
        if let h2c {
            // On a new connection, with prior knowledge; on any live one, as a first request to
            // the origin would ask: to share its h2c connection, or to open one if none is open.
            switch connection {
            case .new: ask(handle.connections.priorKnowledge.askAfterRestart(for: h2c.origin), for: h2c.origin, handle)
            case .anyLive: ask(handle.connections.priorKnowledge.ask(for: h2c.origin), for: h2c.origin, handle)
            }
        }
    }

    /// The last head was a whole authentication challenge (`401`, or `407` from a proxy) that
    /// this transfer has credentials for: libcurl is about to answer it.
    var answersChallenge: Bool {
        guard state.head.isComplete else { return false }
        switch state.statusCode {
        case 401: return request.credentials != nil
        case 407:
            return settings.proxy.map { $0.username != nil || $0.schemes.contains(.negotiate) } == true
                || settings.environmentProxies != nil
        default: return false
        }
    }

    /// libcurl chose a connection for this transfer and is about to send the request on it.
    /// Returns whether it may: the transfer's state decides on a resend, then
    /// ``ConnectionChoice`` on the connection, and this carries out what they say.
    func connectionChosen(ports: ConnectionTracker.Ports, connections: ConnectionTracker) -> Bool {
        guard state.connectionChosen(answersChallenge: answersChallenge) else { return false }
        leaveConnection(connections)  // a resend leaves the connection that died
        let facts = ChosenConnection(
            connections: connections, ports: ports, unixSocketPath: unixSocketPath, opened: openedConnection)
        switch ConnectionChoice.chosen(h2cAsk: h2c?.ask, facts) {
        case .restartOnNewConnection(let shutDown):
            for socket in shutDown { connections.shutDown(socket) }
            state.connectionRefused()
            return false
        case .proceed(let socket, let opensH2C):
            connectionSocket = socket
            guard let socket else { break }
            if let h2c {
                settlePriorKnowledgeAsk(connections)
                if opensH2C { connections.openedH2C(socket, to: h2c.origin) }
            }
            connectionSerial = connections.exchangeStarted(on: socket)
            state.connectionAccepted(multiplexes: connections.multiplexes(socket))
        }
        settleOpening(connections)
        return true
    }

    /// libcurl is about to open a new connection for this transfer: whether it may, or must
    /// wait for the one another transfer is opening to the same origin (see
    /// ``SharedConnectionOpenings``).
    func mayOpenConnection(_ connections: ConnectionTracker) -> Bool {
        guard !connections.openings.isEmpty else { return true }
        let origin = connectionOrigin()
        switch connections.openings.opening(
            origin, by: ObjectIdentifier(self), mayWait: state.mayWaitForSharedConnection)
        {
        case .opens:
            opensConnectionTo = origin
            return true
        case .waits:
            state.waitsForConnection(to: origin)
            return false
        case .proceeds:
            return true
        }
    }

    /// The connection this transfer opened is ready, or the transfer ends: the transfers that
    /// waited for it may go.
    func settleOpening(_ connections: ConnectionTracker) {
        guard let origin = opensConnectionTo else { return }
        opensConnectionTo = nil
        connections.openings.settled(origin, by: ObjectIdentifier(self))
    }

    /// The transfer no longer counts among the exchanges in flight on its connection: it ended,
    /// or starts over on another.
    func leaveConnection(_ connections: ConnectionTracker) {
        guard let connectionSerial, let connectionSocket else { return }
        connections.exchangeLeft(connectionSocket, serial: connectionSerial)
        self.connectionSerial = nil
    }
}

/// What ``ConnectionChoice`` asks of the connection libcurl chose, answered by the transport's
/// ``ConnectionTracker``: a connection through a Unix domain socket is known by what the
/// transfer opened, any other by its ports.
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
