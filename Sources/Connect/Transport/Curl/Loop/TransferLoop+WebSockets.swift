import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// WebSocket connections: opened in a multi handle of their own, the transfer that opened one hands
// its connection over, the loop polls their sockets beside libcurl's and runs each when it is
// ready, and takes its handle out of the multi handle (which closes the connection) once it ended.
//
// A multi handle of their own: libcurl keeps a connect-only connection in the connection cache of
// the multi handle that opened it, where it counts against `CURLMOPT_MAX_HOST_CONNECTIONS` for as
// long as it lives: in the main multi handle, 64 open WebSockets to a host would hold every
// request to that host back. This one has no limits, and is driven with `curl_multi_socket_action`
// from the same poll as the main one.
extension TransferLoop {
    /// The multi handle WebSocket connections live in, made with the first.
    var webSocketMulti: UnsafeMutableRawPointer {
        if let webSocketMultiHandle { return webSocketMultiHandle }
        let multi = curl_multi_init()!
        let context = Unmanaged.passUnretained(self).toOpaque()
        ccurl_multi_setopt_socket_callback(multi) { _, socket, what, context, _ in
            let loop = Unmanaged<TransferLoop>.fromOpaque(context!).takeUnretainedValue()
            if what == CURL_POLL_REMOVE {
                loop.webSocketMultiSockets[socket] = nil
            } else {
                loop.webSocketMultiSockets[socket] =
                    (what & CURL_POLL_IN != 0 ? Int32(CURL_WAIT_POLLIN) : 0)
                    | (what & CURL_POLL_OUT != 0 ? Int32(CURL_WAIT_POLLOUT) : 0)
            }
            return 0
        }
        ccurl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        ccurl_multi_setopt_timer_callback(multi) { _, milliseconds, context in
            let loop = Unmanaged<TransferLoop>.fromOpaque(context!).takeUnretainedValue()
            loop.webSocketMultiDeadline = milliseconds < 0 ? nil : .now + .milliseconds(milliseconds)
            return 0
        }
        ccurl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
        webSocketMultiHandle = multi
        return multi
    }

    /// The bytes one read of a WebSocket takes at most.
    static let webSocketReadSize = 64 << 10

    /// Runs `body`, WebSocket work, holding `webSocketIO` (at once when the loop holds it
    /// already): a task's send on its own thread then never meets the loop in a connection or
    /// in the WebSockets' multi handle, whose connection cache `curl_easy_send` reads.
    func withWebSocketIO(_ body: () -> Void) {
        if holdsWebSocketIO { return body() }
        webSocketIO.withLock { _ in
            holdsWebSocketIO = true
            defer { holdsWebSocketIO = false }
            body()
        }
    }

    /// `transfer`, a WebSocket opening, has its connection (libcurl stopped after connecting,
    /// `CURLOPT_CONNECT_ONLY`): the handshake starts on it. The handle stays in the multi handle
    /// with the connection; the transfer is no longer among the active ones.
    func openWebSocket(_ transfer: CurlTransfer, _ opening: WebSocketOpening, on handle: CurlEasyHandle) {
        withWebSocketIO { startHandshake(transfer, opening, on: handle) }
    }

    private func startHandshake(_ transfer: CurlTransfer, _ opening: WebSocketOpening, on handle: CurlEasyHandle) {
        var socket: curl_socket_t = -1
        ccurl_easy_getinfo_socket(handle.raw, CURLINFO_ACTIVESOCKET, &socket)
        let url = handle.infoString(CURLINFO_EFFECTIVE_URL) ?? transfer.request.url.absoluteString
        removeActive(handle)
        guard socket >= 0 else {
            remove(handle)
            settle(
                transfer,
                .failure(
                    ConnectError.transport(
                        TransportFailure(.other, "libcurl connected without a socket", requestSent: false))))
            return
        }
        var random = SystemRandomNumberGenerator()
        let connection = CurlWebSocket(
            transfer: transfer, handle: handle, socket: socket, url: url, opening: opening,
            handshake: WebSocketHandshake(
                key: WebSocketHandshake.randomKey(using: &random),
                subprotocols: WebSocketHandshake.offeredSubprotocols(in: transfer.request.headers),
                compressionOffer: opening.options.compression))
        webSockets.append(connection)
        if webSocketReadBuffer == nil {
            webSocketReadBuffer = .allocate(byteCount: Self.webSocketReadSize, alignment: 16)
        }
        let timeout = transfer.request.timeout ?? transfer.settings.timeout
        let elapsed = handle.infoDuration(CURLINFO_TOTAL_TIME_T)
        do {
            connection.beginHandshake(
                headers: try transfer.webSocketHandshakeHeaders(url: url, handle: handle),
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
        var opening: [(Int32, Int32)] = []
        var polled: [CurlWebSocket] = []
        withWebSocketIO {
            webSocketPolls.removeAll(keepingCapacity: true)
            // The connections being opened, as libcurl asks; then the open ones.
            opening = webSocketMultiSockets.map { ($0.key, $0.value) }
            for (socket, events) in opening {
                webSocketPolls.append(curl_waitfd(fd: socket, events: Int16(events), revents: 0))
            }
            func wait(until deadline: MonotonicInstant?) {
                guard let deadline else { return }
                timeout = now < deadline ? min(timeout, Int((deadline - now) / .milliseconds(1)) + 1) : 0
            }
            wait(until: webSocketMultiDeadline)
            for connection in webSockets {
                webSocketPolls.append(
                    curl_waitfd(fd: connection.socket, events: connection.wantedEvents, revents: 0))
                wait(until: connection.mayHaveInput ? now : connection.nextDeadline)
            }
            // By index into the list as it was polled: a connection that ends leaves the list, and
            // one that opens joins it.
            polled = webSockets
        }
        // Without `webSocketIO`: a task may send on an open WebSocket meanwhile. A send that
        // leaves bytes waiting, or ends the connection, wakes the poll.
        curl_multi_poll(multi, &webSocketPolls, UInt32(webSocketPolls.count), Int32(timeout), nil)
        now = .now
        withWebSocketIO {
            driveWebSocketMulti(opening: opening, now: now)
            for (index, connection) in polled.enumerated() {
                let events = webSocketPolls[opening.count + index].revents
                let due = connection.nextDeadline.map { !(now < $0) } ?? false
                guard !connection.isEnded, events != 0 || due || connection.mayHaveInput else { continue }
                connection.service(
                    readable: events & Int16(CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI) != 0,
                    writable: events & Int16(CURL_WAIT_POLLOUT) != 0, now: now, buffer: webSocketReadBuffer!)
                settle(connection)
            }
        }
    }

    /// Hands libcurl what the poll found on the sockets of connections being opened, and its
    /// timer when due; then collects the openings that connected (or failed).
    private func driveWebSocketMulti(opening: [(Int32, Int32)], now: MonotonicInstant) {
        guard let multi = webSocketMultiHandle else { return }
        var running: Int32 = 0
        for (index, (socket, _)) in opening.enumerated() {
            let events = Int32(webSocketPolls[index].revents)
            guard events != 0 else { continue }
            let mask =
                (events & Int32(CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI) != 0 ? CURL_CSELECT_IN : 0)
                | (events & Int32(CURL_WAIT_POLLOUT) != 0 ? CURL_CSELECT_OUT : 0)
            curl_multi_socket_action(multi, socket, Int32(mask), &running)
        }
        if let deadline = webSocketMultiDeadline, !(now < deadline) {
            webSocketMultiDeadline = nil
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
        }
        collectFinished(from: multi)
    }

    /// Runs the application's `command` on `connection`.
    func carryOut(_ command: CurlWebSocket.Command, for connection: CurlWebSocket) {
        withWebSocketIO { runCommand(command, for: connection) }
    }

    private func runCommand(_ command: CurlWebSocket.Command, for connection: CurlWebSocket) {
        guard webSockets.contains(where: { $0 === connection }) else {
            // Ended already: what waits learns it at once.
            switch command {
            case .send(_, let continuation), .ping(let continuation):
                continuation.resume(throwing: WebSocketError.closed)
            case .close(_, _, let continuation):
                continuation.resume(returning: connection.inbox.ending ?? .failed(.closed))
            case .resumeReading, .release, .flush:
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
            settle(transfer, outcome)
        }
        guard connection.isEnded else { return }
        webSockets.removeAll { $0 === connection }
        // Out of the multi handle, which closes a connect-only connection.
        remove(connection.handle)
        if webSockets.isEmpty, let buffer = webSocketReadBuffer {
            buffer.deallocate()
            webSocketReadBuffer = nil
        }
    }

    /// A WebSocket opening whose future was cancelled during its handshake.
    func cancelWebSocketOpening(_ transfer: CurlTransfer) {
        withWebSocketIO {
            guard let connection = webSockets.first(where: { $0.openingTransfer === transfer }) else { return }
            connection.endOpening(failure: ConnectError.cancelled)
            settle(connection)
        }
    }

    /// The loop stops: every connection ends where it is.
    func closeWebSockets() {
        withWebSocketIO { closeEveryWebSocket() }
    }

    private func closeEveryWebSocket() {
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
