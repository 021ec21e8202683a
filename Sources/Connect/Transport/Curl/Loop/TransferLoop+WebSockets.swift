import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// WebSocket connections: the transfer that opened one hands its connection over, the loop polls
// their sockets beside libcurl's and runs each when it is ready, and takes its handle out of the
// multi handle (which closes the connection) once it ended.
extension TransferLoop {
    /// The bytes one read of a WebSocket takes at most.
    static let webSocketReadSize = 64 << 10

    /// `transfer`, a WebSocket opening, has its connection (libcurl stopped after connecting,
    /// `CURLOPT_CONNECT_ONLY`): the handshake starts on it. The handle stays in the multi handle
    /// with the connection; the transfer is no longer among the active ones.
    func openWebSocket(_ transfer: CurlTransfer, _ opening: WebSocketOpening, on handle: CurlEasyHandle) {
        var socket: curl_socket_t = -1
        ccurl_easy_getinfo_socket(handle.raw, CURLINFO_ACTIVESOCKET, &socket)
        let url = handle.infoString(CURLINFO_EFFECTIVE_URL) ?? transfer.request.url.absoluteString
        removeActive(handle)
        guard socket >= 0 else {
            closeConnection(of: handle)
            deliver(
                transfer,
                .failure(
                    ConnectError.transport(
                        TransportFailure(.other, "libcurl connected without a socket", requestSent: false))))
            return
        }
        var random = SystemRandomNumberGenerator()
        let connection = CurlWebSocket(
            transfer: transfer, handle: handle, socket: socket, opening: opening,
            handshake: WebSocketHandshake(
                key: WebSocketHandshake.randomKey(using: &random),
                subprotocols: WebSocketHandshake.offeredSubprotocols(in: transfer.request.headers),
                offersCompression: opening.options.compression))
        webSockets.append(connection)
        if webSocketReadBuffer == nil {
            webSocketReadBuffer = .allocate(byteCount: Self.webSocketReadSize, alignment: 16)
        }
        let timeout = transfer.request.timeout ?? transfer.settings.timeout
        let elapsed = handle.infoDuration(CURLINFO_TOTAL_TIME_T)
        do {
            connection.beginHandshake(
                headers: try transfer.webSocketHandshakeHeaders(), url: url,
                deadline: .now + max(.zero, timeout - elapsed))
        } catch {
            connection.endOpening(failure: error)
        }
        settle(connection)
    }

    /// Waits in `curl_multi_poll` for libcurl's sockets and the WebSockets' together, until the
    /// next WebSocket deadline at most, then runs the WebSockets that are ready.
    func pollWithWebSockets() {
        var now = MonotonicInstant.now
        var timeout = 60_000
        webSocketPolls.removeAll(keepingCapacity: true)
        for connection in webSockets {
            webSocketPolls.append(curl_waitfd(fd: connection.socket, events: connection.wantedEvents, revents: 0))
            if connection.mayHaveInput {
                timeout = 0
            } else if let deadline = connection.nextDeadline {
                timeout = min(timeout, deadline < now ? 0 : Int((deadline - now) / .milliseconds(1)) + 1)
            }
        }
        curl_multi_poll(multi, &webSocketPolls, UInt32(webSocketPolls.count), Int32(timeout), nil)
        now = .now
        // By index into the list as it was polled: a connection that ends leaves the list.
        let polled = webSockets
        for (index, connection) in polled.enumerated() {
            let events = webSocketPolls[index].revents
            let due = connection.nextDeadline.map { !(now < $0) } ?? false
            guard events != 0 || due || connection.mayHaveInput else { continue }
            connection.service(
                readable: events & Int16(CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI) != 0,
                writable: events & Int16(CURL_WAIT_POLLOUT) != 0, now: now, buffer: webSocketReadBuffer!)
            settle(connection)
        }
    }

    /// Runs the application's `command` on `connection`.
    func carryOut(_ command: CurlWebSocket.Command, for connection: CurlWebSocket) {
        guard webSockets.contains(where: { $0 === connection }) else {
            // Ended already: what waits learns it at once.
            switch command {
            case .send(_, let continuation), .ping(let continuation):
                continuation.resume(throwing: WebSocketError.closed)
            case .close(_, _, let continuation):
                continuation.resume()
            case .resumeReading, .release:
                break
            }
            return
        }
        let now = MonotonicInstant.now
        connection.carryOut(command, now: now)
        if !connection.isEnded {
            connection.service(readable: false, writable: true, now: now, buffer: webSocketReadBuffer!)
        }
        settle(connection)
    }

    /// Delivers the handshake's transfer once it ended, and lets go of a connection that ended.
    func settle(_ connection: CurlWebSocket) {
        if let (transfer, outcome) = connection.openingOutcome {
            connection.openingOutcome = nil
            deliver(transfer, outcome)
        }
        guard connection.isEnded else { return }
        webSockets.removeAll { $0 === connection }
        closeConnection(of: connection.handle)
        if webSockets.isEmpty, let buffer = webSocketReadBuffer {
            buffer.deallocate()
            webSocketReadBuffer = nil
        }
    }

    /// Takes a connect-only handle out of the multi handle, which closes its connection, and
    /// keeps the handle, reset, for another transfer.
    func closeConnection(of handle: CurlEasyHandle) {
        handle.holdsPlainSetup = false
        curl_multi_remove_handle(multi, handle.raw)
        recycle(handle)
    }

    /// A WebSocket opening whose future was cancelled during its handshake.
    func cancelWebSocketOpening(_ transfer: CurlTransfer) {
        guard let connection = webSockets.first(where: { $0.openingTransfer === transfer }) else { return }
        connection.endOpening(failure: ConnectError.cancelled)
        settle(connection)
    }

    /// The loop stops: every connection ends where it is.
    func closeWebSockets() {
        for connection in webSockets {
            if connection.openingTransfer != nil {
                connection.endOpening(failure: ConnectError.cancelled)
            } else {
                connection.dropReason = "the client stopped"
                connection.end()
            }
            settle(connection)
        }
    }
}
