import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
        if let webSocketMultiWatch { return webSocketMultiWatch.multi }
        let watch = MultiSocketWatch(curl_multi_init()!)
        webSocketMultiWatch = watch
        return watch.multi
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

    /// The WebSockets' part of the loop's poll: the sockets of their multi handle (connections
    /// being opened) at `openings`, then one per connection in `connections`, in order.
    struct WebSocketPolls {
        let openings: Range<Int>
        let connections: [CurlWebSocket]
    }

    /// Adds the WebSockets' sockets to `polls` (see `waitForWork`), shortening `timeout` (in
    /// milliseconds) to the next WebSocket deadline.
    func appendWebSocketPolls(to polls: inout [pollfd], now: MonotonicInstant, timeout: inout Int) -> WebSocketPolls {
        var openings = polls.count..<polls.count
        var connections: [CurlWebSocket] = []
        withWebSocketIO {
            func wait(until deadline: MonotonicInstant?) {
                guard let deadline else { return }
                timeout = min(timeout, now.millisecondsToWait(until: deadline))
            }
            // The connections being opened, as libcurl asks; then the open ones.
            if let webSocketMultiWatch {
                webSocketMultiWatch.appendPolls(to: &polls)
                if let due = webSocketMultiWatch.timeout(from: now) { timeout = min(timeout, due) }
            }
            openings = openings.lowerBound..<polls.count
            for connection in webSockets {
                polls.append(pollfd(fd: connection.socket, events: connection.wantedEvents, revents: 0))
                wait(until: connection.mayHaveInput ? now : connection.nextDeadline)
            }
            // By index into the list as it was polled: a connection that ends leaves the list, and
            // one that opens joins it.
            connections = webSockets
        }
        return WebSocketPolls(openings: openings, connections: connections)
    }

    /// Runs what the poll found for the WebSockets (see ``appendWebSocketPolls(to:now:timeout:)``):
    /// libcurl on the sockets of connections being opened, collecting the openings that
    /// connected (or failed); then each open connection that is ready, or whose deadline is due.
    func serviceWebSockets(_ polled: WebSocketPolls, now: MonotonicInstant) {
        withWebSocketIO {
            if let webSocketMultiWatch {
                webSocketMultiWatch.noteReadiness(polls[polled.openings])
                webSocketMultiWatch.act()
                collectFinished(from: webSocketMultiWatch.multi)
            }
            for (index, connection) in polled.connections.enumerated() {
                let events = polls[polled.openings.upperBound + index].revents & Int16(POLLIN | POLLPRI | POLLOUT)
                let due = connection.nextDeadline.map { !(now < $0) } ?? false
                guard !connection.isEnded, events != 0 || due || connection.mayHaveInput else { continue }
                connection.service(
                    readable: events & Int16(POLLIN | POLLPRI) != 0,
                    writable: events & Int16(POLLOUT) != 0, now: now, buffer: webSocketReadBuffer!)
                settle(connection)
            }
        }
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
