internal import ConnectWire
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The connection a transfer goes out on: libcurl's choice checked as it is made (a socket
/// opened, a connection chosen), and where the transfer starts over when it must. The two
/// callbacks, C function pointers with the easy handle as their context, sit beside the methods
/// they call.
extension CurlTransfer {
    /// libcurl created a socket for a new connection (`CURLOPT_SOCKOPTFUNCTION`): the tracker
    /// learns of it, and the transfer may be stopped to wait for another's new connection to the
    /// same origin (`CURL_SOCKOPT_ERROR` ends the attempt before it connects); see
    /// ``mayOpenConnection(_:)``.
    static let socketOpenedCallback: ccurl_sockopt_callback = { context, socket, _ in
        let opens = Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
            let serial = handle.connections.opened(
                socket, unixSocketPath: handle.withTransfer { $0.unixSocketPath } ?? nil)
            return handle.withTransfer { transfer in
                transfer.connection.opened = serial.map { (socket, $0) }
                transfer.state.connectingBegan(at: .now)
                return transfer.mayOpenConnection(handle.connections)
            }
        }
        return opens != false ? 0 : 1  // CURL_SOCKOPT_OK, CURL_SOCKOPT_ERROR
    }

    /// libcurl starts a name lookup for the transfer (`CURLOPT_RESOLVER_START_FUNCTION`; a cached
    /// or literal address starts none): the transfer is connecting, no longer waiting in
    /// libcurl's queue (see ``ResendDecision/startsOverAfterWaitingInQueue(_:connectingLasted:connectionChosen:connectTimeout:timeLeft:)``).
    static let resolverStartedCallback: ccurl_resolver_start_callback = { _, _, context in
        Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
            _ = handle.withTransfer { $0.state.connectingBegan(at: .now) }
        }
        return 0  // resolve
    }

    /// The transfer's own timeout, `nil` for none.
    var timeout: Duration? {
        let timeout = request.timeout ?? settings.timeout
        return Self.milliseconds(timeout) == 0 ? nil : timeout
    }

    /// libcurl has neither begun connecting for the transfer nor chosen it a connection: it
    /// waits in libcurl's queue (or was just handed over).
    var waitsForConnection: Bool { !state.leftConnectionQueue }

    /// The time the transfer's own timeout has left, on `handle`, which runs it: the whole
    /// exchange, every start-over included, is bounded by it. The first call reads when the
    /// transfer first went to libcurl from the time libcurl counted for this first attempt.
    func timeLeft(on handle: CurlEasyHandle) -> Duration {
        let now = MonotonicInstant.now
        let started = firstAttemptStarted ?? now + (.zero - handle.infoDuration(CURLINFO_TOTAL_TIME_T))
        firstAttemptStarted = started
        return (timeout ?? .seconds(Int64.max)) - (now - started)
    }

    /// libcurl's pre-request callback (`CURLOPT_PREREQFUNCTION`): whether the request may go out
    /// on the connection libcurl chose; see ``connectionChosen(ports:connections:)``.
    static let connectionChosenCallback: ccurl_prereq_callback = { context, _, _, remotePort, localPort in
        let ports = ConnectionTracker.ports(local: Int(localPort), remote: Int(remotePort))
        let proceeds = Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
            handle.withTransfer { $0.connectionChosen(ports: ports, connections: handle.connections) }
        }
        return proceeds != false ? ccurl_prereq_ok : ccurl_prereq_abort
    }

    /// Rewinds the body for the transfer to run again on its handle reset, before
    /// ``configure(_:again:)``: false when the body cannot go out again (a one-time stream), and
    /// the handle keeps its options instead. libcurl rewinds a multipart body itself.
    func rewindsForReset() -> Bool {
        bodyReader?.seek(to: 0) ?? true
    }

    /// The transfer starts over on `connection`: nothing of the response arrived on the last.
    func prepareForRestart(on handle: CurlEasyHandle, _ connection: ResendDecision.RestartConnection) {
        // A wait cut the connect timeout of the attempt that ended, not of the next. (A transfer
        // with an alternative now was set up again for it, with the fallback's bound.)
        if state.connectTimeoutCut != nil, alternativeRoute == nil { setConnectTimeout(on: handle) }
        state.startsOver()
        headScreen.startsOver()
        self.connection.startsOver(handle.connections)
        received?.empty()
        if let h2c = self.connection.h2c {
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
        connection.leave(connections)  // a resend leaves the connection that died
        let facts = ConnectionTracker.ChosenConnection(
            connections: connections, ports: ports, unixSocketPath: unixSocketPath, opened: connection.opened)
        switch ConnectionChoice.chosen(
            h2cAsk: connection.h2c?.ask,
            libcurlReusesUnreadConnections: LibcurlDefects.running.reusesConnectionsWithBytesWaiting, facts)
        {
        case .restartOnNewConnection(let shutDown):
            for socket in shutDown { connections.shutDown(socket) }
            state.connectionRefused()
            return false
        case .proceed(let socket, let opensH2C):
            if let socket, let h2c = connection.h2c {
                connection.settlePriorKnowledgeAsk(connections)
                if opensH2C { connections.openedH2C(socket, to: h2c.origin) }
            }
            connection.wentOut(on: socket, connections)
            if let socket { state.connectionAccepted(multiplexes: connections.multiplexes(socket)) }
        }
        connection.settleOpening(connections, by: ObjectIdentifier(self))
        return true
    }

    /// The transfer waited for the connection another was opening, and that one is ready or
    /// ended without one, at `now`: whether it goes to libcurl again, within what the wait left
    /// of its connect timeout, or the wait used it up (see
    /// ``TransferState/connectionWaitEnded(at:connectTimeout:cuts:)``).
    func connectionWaitEnded(on handle: CurlEasyHandle, at now: MonotonicInstant) -> TransferState.WaitEnd {
        let end = state.connectionWaitEnded(
            at: now, connectTimeout: configuredConnectTimeout, cuts: alternativeRoute == nil)
        if case .connects(let left?) = end { setConnectTimeout(on: handle, cutTo: left) }
        return end
    }

    /// Sets the attempt's connect timeout: the settings', or `bound` where that is shorter (an
    /// HTTP/3 alternative's fallback, or what a wait for another's connection left).
    func setConnectTimeout(on handle: CurlEasyHandle, cutTo bound: Duration? = nil) {
        let timeout = bound.map { min($0, settings.connectTimeout) } ?? settings.connectTimeout
        handle.setConnectTimeout(timeout)
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
            connection.opens(to: origin)
            return true
        case .waits:
            state.waitsForConnection(to: origin, at: .now)
            return false
        case .proceeds:
            return true
        }
    }
}
