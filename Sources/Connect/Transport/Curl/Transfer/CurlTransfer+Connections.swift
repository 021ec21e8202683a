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
    /// Returns whether it may.
    func connectionChosen(ports: ConnectionTracker.Ports, connections: ConnectionTracker) -> Bool {
        guard state.connectionChosen(answersChallenge: answersChallenge) else { return false }
        leaveConnection(connections)  // a resend leaves the connection that died
        if let unixSocketPath {
            // A Unix domain socket has no ports to name its connection by (see
            // ``ConnectionTracker/unixConnectionChosen(through:opened:)``).
            connectionSocket = connections.unixConnectionChosen(through: unixSocketPath, opened: openedConnection)
            if connectionSocket == nil {
                state.connectionRefused()
                return false
            }
        } else {
            connectionSocket = connections.socket(for: ports)
        }
        if let connectionSocket, connections.hasUnreadBytes(on: connectionSocket) {
            state.connectionRefused()
            return false
        }
        if let connectionSocket, !connections.allowsAnotherExchange(on: connectionSocket) {
            state.connectionRefused()
            return false
        }
        if let h2c, let connectionSocket {
            settlePriorKnowledgeAsk(connections)
            let connection = connections.choose(connectionSocket)
            switch PriorKnowledgeConnections.verdict(
                asked: h2c.ask, connectionIsNew: connection.isNew, connectionSpeaksH2C: connection.speaksH2C)
            {
            case .proceed:
                if h2c.ask == .priorKnowledge { connections.openedH2C(connectionSocket, to: h2c.origin) }
            case .restartWithPriorKnowledge:
                state.connectionRefused()
                return false
            }
        }
        if let connectionSocket {
            connectionSerial = connections.exchangeStarted(on: connectionSocket)
            state.connectionAccepted(multiplexes: connections.multiplexes(connectionSocket))
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
