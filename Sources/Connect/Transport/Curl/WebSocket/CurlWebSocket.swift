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

/// One WebSocket connection on the transfer thread: the socket libcurl connected (through the
/// proxy, with TLS) for a transfer with `CURLOPT_CONNECT_ONLY`, which this class writes to and
/// reads from with `curl_easy_send` and `curl_easy_recv`, first for the opening handshake
/// (`CurlWebSocket+Handshake`), then for frames.
///
/// It runs the actions ``WebSocketConnectionState`` returns for each event, reads frames with
/// ``WebSocketFrameReader`` and ``WebSocketMessageAssembler``, and hands messages to the
/// ``WebSocketInbox`` the application reads. The ``TransferLoop`` polls its socket beside
/// libcurl's and calls ``service(readable:writable:now:buffer:)`` when it is ready or a deadline
/// passes; no thread of its own.
///
/// The easy handle stays in the multi handle while the connection lives: libcurl closes a
/// connect-only connection when its handle leaves (7.88 `curl_multi_remove_handle`). From the
/// first send it is attached to the handle again, in use, so libcurl's pruning of idle
/// connections never takes it.
///
/// `@unchecked Sendable`: touched by the transfer thread, holding the loop's `webSocketIO`, and by
/// a task sending a message, holding the same lock (``sendOnCallersThread(_:_:)``); otherwise the
/// application reaches it through commands queued to the loop and through the inbox, which has
/// its own lock.
final class CurlWebSocket: @unchecked Sendable {
    /// What the application asks for, queued to the loop.
    enum Command {
        case send(WebSocketMessage, CheckedContinuation<Void, any Error>)
        case ping(CheckedContinuation<Void, any Error>)
        case close(code: UInt16, reason: String, CheckedContinuation<WebSocketEnding, any Error>)
        /// The reader took enough of what was held: read the socket again.
        case resumeReading
        /// The application let go of the socket, or its reading task was cancelled: close with
        /// 1001 (going away).
        case release
        /// A task's send on its own thread left bytes the socket did not take, or ended the
        /// connection: the loop polls for writing, or lets the connection go.
        case flush
    }

    /// Bytes of frames to write, and the send that returns once they are handed to the socket.
    struct Outgoing {
        var bytes: [UInt8]
        var completion: CheckedContinuation<Void, any Error>?
    }

    let handle: CurlEasyHandle
    /// Keeps the loop (and its thread) alive while the connection lives.
    let transport: CurlTransport
    let socket: Int32
    /// Where the handshake goes: libcurl's effective URL (`http` or `https`).
    let url: String
    let options: WebSocketOptions
    let inbox: WebSocketInbox
    /// Where the open connection is left for the exchange, until the handshake completes: not
    /// held after, since the opening holds the connection until it is taken (or released).
    var opening: WebSocketOpening?

    // The handshake (see CurlWebSocket+Handshake).
    /// The transfer whose response the handshake's answer is, until it is delivered.
    var openingTransfer: CurlTransfer?
    /// The transfer and what it ends with, once the handshake is over, for the loop to deliver.
    var openingOutcome: (CurlTransfer, Result<ResponseBuffers, any Error>)?
    var handshake: WebSocketHandshake
    /// The start of a head line that has not ended yet.
    var partialLine: [UInt8] = []
    /// The answer was not 101: its body is read, then the connection closed.
    var readsRefusalBody = false
    var refusalBodyLeft: Int?

    // The open connection. `@exclusivity(unchecked)` on what every frame touches: one thread at a
    // time uses it (the transfer thread, or a sending task, each holding the loop's
    // `webSocketIO`), one access at a time, so the runtime's dynamic exclusivity checks (a
    // thread-local lookup per access) only cost time.
    @exclusivity(unchecked) var reader: WebSocketFrameReader
    @exclusivity(unchecked) var assembler: WebSocketMessageAssembler
    @exclusivity(unchecked) var state = WebSocketConnectionState()
    /// permessage-deflate, when the server accepted it.
    var compression: PermessageDeflate?
    @exclusivity(unchecked) var output: [Outgoing] = []
    /// Messages read and not yet handed to the inbox, handed over together (see
    /// ``handOverSize``), and their bytes.
    @exclusivity(unchecked) var arrived: [WebSocketMessage] = []
    @exclusivity(unchecked) var arrivedBytes = 0
    /// Bytes of `output[0]` already handed to the socket.
    @exclusivity(unchecked) var outputOffset = 0
    var pongWaiters: [(payload: [UInt8], continuation: CheckedContinuation<Void, any Error>)] = []
    var closeWaiters: [CheckedContinuation<WebSocketEnding, any Error>] = []
    /// When the handshake or the closing handshake gives up.
    var deadline: MonotonicInstant?
    var nextKeepAlivePing: MonotonicInstant?
    var keepAlivePingUnanswered = false
    var pingSerial: UInt64 = 0
    var readingPaused = false
    /// The server broke the protocol after messages the reader has not all taken: the socket is
    /// no longer read, and the connection fails once the reader comes back for more (or
    /// ``WebSocketOptions/closeTimeout`` passed), so that the application can still answer them.
    var pendingViolation: WebSocketProtocolViolation?
    /// A read stopped at its budget with bytes possibly left (in the socket or in TLS's buffer,
    /// which a poll does not see): read again without waiting.
    var mayHaveInput = false
    var closesWhenFlushed = false
    /// Why the connection ended without a close frame, for ``WebSocketError/dropped(_:)``.
    var dropReason = "the server closed the connection"
    private(set) var isEnded = false
    var random = SystemRandomNumberGenerator()

    init(
        transfer: CurlTransfer, handle: CurlEasyHandle, socket: Int32, url: String, opening: WebSocketOpening,
        handshake: WebSocketHandshake
    ) {
        self.handle = handle
        transport = transfer.transport
        self.socket = socket
        self.url = url
        self.opening = opening
        options = opening.options
        inbox = WebSocketInbox(limit: opening.options.receiveBufferSize)
        openingTransfer = transfer
        self.handshake = handshake
        reader = WebSocketFrameReader(maximumPayload: opening.options.maximumMessageSize)
        assembler = WebSocketMessageAssembler(maximumMessageSize: opening.options.maximumMessageSize)
    }

    /// The poll(2) events the socket waits for: input unless reading is paused, output while
    /// frames wait to go out.
    var wantedEvents: Int16 {
        guard !isEnded else { return 0 }
        let reads = !readingPaused && pendingViolation == nil
        return (reads ? Int16(POLLIN) : 0) | (output.isEmpty ? 0 : Int16(POLLOUT))
    }

    /// The next time something is due without the socket: a timeout, a keep-alive ping.
    var nextDeadline: MonotonicInstant? {
        switch (deadline, nextKeepAlivePing) {
        case (let deadline?, let ping?): deadline < ping ? deadline : ping
        case (let deadline, let ping): deadline ?? ping
        }
    }

    /// One round: reads what arrived, runs what is due, writes what waits. `buffer` is the
    /// loop's, reused for every read.
    func service(readable: Bool, writable: Bool, now: MonotonicInstant, buffer: UnsafeMutableRawBufferPointer) {
        if readable || mayHaveInput { receive(into: buffer) }
        if !isEnded, let deadline, !(now < deadline) { deadlinePassed() }
        if !isEnded, let ping = nextKeepAlivePing, !(now < ping) { keepAlivePingDue(now: now) }
        if !isEnded { flush() }
    }

    // MARK: Reading

    /// The bytes of messages read that are handed to the reader together while the socket
    /// still has more: a reader that keeps up waits for each batch, and fewer, larger batches
    /// wake it less often. The socket running dry hands over what was read at once.
    static let handOverSize = 64 << 10

    /// Reads until the socket has nothing more, reading pauses, or 1 MiB went by (the other
    /// transfers get their turn; `mayHaveInput` brings this one back at once); the messages read
    /// go to the reader in batches (``handOverSize``), the last when it stops.
    func receive(into buffer: UnsafeMutableRawBufferPointer) {
        mayHaveInput = false
        defer { handOverArrived() }
        var reads = 16
        while !isEnded, !readingPaused, pendingViolation == nil {
            guard reads > 0 else {
                mayHaveInput = true
                return
            }
            reads -= 1
            var count = 0
            let code = curl_easy_recv(handle.raw, buffer.baseAddress, buffer.count, &count)
            if code == CURLE_AGAIN { return }
            guard code == CURLE_OK else {
                socketEnded(reason: "receiving failed: \(handle.errorMessage(for: code))", code: CURLE_RECV_ERROR)
                return
            }
            guard count > 0 else {
                socketEnded(reason: "the server closed the connection", code: CURLE_OK)
                return
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            if openingTransfer != nil {
                takeHandshakeBytes(bytes)
            } else {
                takeFrames(bytes)
            }
            if arrivedBytes >= Self.handOverSize { handOverArrived() }
        }
    }

    /// Bytes of frames from the server, once the connection is open: each frame is read where
    /// it lies in `bytes` and its message made from it, until the connection closes.
    func takeFrames(_ bytes: UnsafeRawBufferPointer) {
        do throws(WebSocketProtocolViolation) {
            try reader.read(bytes) { header, payload in
                guard !isEnded, !closesWhenFlushed else { return false }
                do throws(WebSocketProtocolViolation) {
                    guard let event = try assembler.take(header, payload: payload) else { return true }
                    // A message, the usual event, is delivered without a list of actions to run.
                    if case .message(let message) = event, state.deliversMessages {
                        arrive(message)
                    } else {
                        run(state.received(event))
                    }
                    return true
                } catch {
                    violated(error)
                    return false
                }
            }
            // A frame not yet whole is checked as far as it came.
            if !isEnded, !closesWhenFlushed, pendingViolation == nil, reader.pendingByteCount > 0 {
                try reader.withPartialFrame { header, payload throws(WebSocketProtocolViolation) in
                    try assembler.checkBeginning(of: header, payloadSoFar: payload)
                }
            }
        } catch {
            violated(error)
        }
    }

    /// The server broke the protocol: the connection fails, once the reader took every message
    /// read before (see ``pendingViolation``).
    func violated(_ violation: WebSocketProtocolViolation) {
        guard case .open = state.phase else { return run(state.failed(violation)) }
        pendingViolation = violation
        nextKeepAlivePing = nil
        arrivedBytes = 0
        if inbox.deliverBeforeFailing(&arrived) {
            deadline = .now + options.closeTimeout
        } else {
            failForPendingViolation()
        }
    }

    /// Fails the connection for the violation that waited for the reader.
    func failForPendingViolation() {
        guard let violation = pendingViolation else { return }
        pendingViolation = nil
        deadline = nil
        run(state.failed(violation))
    }

    /// A message read, for the next batch.
    func arrive(_ message: WebSocketMessage) {
        arrived.append(message)
        arrivedBytes += WebSocketInbox.size(of: message)
    }

    /// Hands the messages read to the inbox, and pauses reading when it is full.
    func handOverArrived() {
        arrivedBytes = 0
        // Reading pauses for a slow reader only while the connection is open: once this side
        // closes, the server's close frame must be read whatever the reader holds, or the closing
        // handshake waits out its timeout (see ``readUntilClosed()``).
        if inbox.deliver(&arrived), case .open = state.phase { readingPaused = true }
    }

    /// This side started the closing handshake: the socket is read again, even for a reader
    /// that stopped taking messages, until the server's close frame comes.
    func readUntilClosed() {
        readingPaused = false
        mayHaveInput = true
    }

    /// The socket ended (or broke) while reading or writing.
    func socketEnded(reason: String, code: CURLcode) {
        if openingTransfer != nil {
            endOpening(socketEndedWith: code, reason: reason)
            return
        }
        drop(because: reason)
    }

    /// The connection ends without a close frame (1006), for `reason`.
    func drop(because reason: String) {
        dropReason = reason
        _ = state.socketEnded()
        end()
    }

    // MARK: What the state decides

    func run(_ actions: [WebSocketConnectionState.Action]) {
        for action in actions {
            switch action {
            case .send(let frame):
                output.append(Outgoing(bytes: frame.encoded(maskingKey: random.next()), completion: nil))
            case .deliver(let message):
                arrive(message)
            case .pongArrived(let payload):
                pongArrived(payload)
            case .closeSocket:
                closesWhenFlushed = true
            }
        }
    }

    func pongArrived(_ payload: [UInt8]) {
        keepAlivePingUnanswered = false
        // A pong answers its ping and, the server having seen them, every ping sent before it.
        guard let answered = pongWaiters.firstIndex(where: { $0.payload == payload }) else { return }
        let waiters = pongWaiters[...answered]
        pongWaiters.removeSubrange(...answered)
        for waiter in waiters { waiter.continuation.resume() }
    }

    // MARK: Commands

    func carryOut(_ command: Command, now: MonotonicInstant) {
        switch command {
        case .send(let message, let continuation):
            guard !isEnded, openingTransfer == nil else { return continuation.resume(throwing: WebSocketError.closed) }
            do throws(WebSocketConnectionState.Refusal) {
                let frames = try state.send(message, fragmentSize: options.maximumFrameSize, compression: compression)
                run(frames)
                // The send returns once its last frame is handed to the socket.
                if !frames.isEmpty { output[output.count - 1].completion = continuation }
            } catch {
                continuation.resume(throwing: WebSocketError.closed)
            }
        case .ping(let continuation):
            guard !isEnded else { return continuation.resume(throwing: WebSocketError.closed) }
            let payload = nextPingPayload()
            do throws(WebSocketConnectionState.Refusal) {
                run(try state.ping(payload))
                pongWaiters.append((payload, continuation))
            } catch {
                continuation.resume(throwing: WebSocketError.closed)
            }
        case .close(let code, let reason, let continuation):
            guard !isEnded else { return continuation.resume(returning: inbox.ending ?? .failed(.closed)) }
            if pendingViolation != nil {
                // The server's violation ends the connection, not the application's close.
                failForPendingViolation()
                return closeWaiters.append(continuation)
            }
            do throws(WebSocketConnectionState.Refusal) {
                run(try state.close(code: code, reason: reason))
            } catch {
                return continuation.resume(throwing: WebSocketError.invalidArgument(error.reason))
            }
            closeWaiters.append(continuation)
            startClosingDeadline(now: now)
            readUntilClosed()
        case .resumeReading:
            guard pendingViolation == nil else { return failForPendingViolation() }
            readingPaused = false
            mayHaveInput = true
        case .flush:
            break
        case .release:
            guard !isEnded else { return }
            if openingTransfer != nil {
                // Not opened yet: nothing to close politely.
                dropReason = "the application let go of the socket"
                end()
                return
            }
            if pendingViolation != nil { return failForPendingViolation() }
            if case .open = state.phase {
                run((try? state.close(code: 1001, reason: "")) ?? [])
                startClosingDeadline(now: now)
                readUntilClosed()
            }
        }
    }

    /// Sends `message` from the calling task's thread, as the loop would, when the loop is not
    /// using the WebSockets (it polls) and nothing waits to go out before it: `continuation`
    /// resumes once the last frame is handed to the socket, here when the socket takes it all.
    /// `false` when it cannot (the loop is busy, or the connection is not open and idle): the
    /// send goes to the loop as a command. An echo's round trip then costs no hand-over to the
    /// transfer thread and back.
    func sendOnCallersThread(_ message: WebSocketMessage, _ continuation: CheckedContinuation<Void, any Error>) -> Bool
    {
        let loop = transport.loop
        let sent = loop.webSocketIO.withLockIfAvailable { _ -> Bool in
            guard !isEnded, openingTransfer == nil, output.isEmpty, case .open = state.phase else { return false }
            carryOut(.send(message, continuation), now: .now)
            flush()
            // Bytes left for the poll to wait on, or an end for the loop to settle.
            if !output.isEmpty || isEnded { loop.enqueue(.webSocket(self, .flush)) }
            return true
        }
        return sent ?? false
    }

    /// A payload no earlier ping of this connection carried: its serial, 8 bytes.
    func nextPingPayload() -> [UInt8] {
        pingSerial += 1
        return withUnsafeBytes(of: pingSerial.bigEndian) { Array($0) }
    }

    /// The server has ``WebSocketOptions/closeTimeout`` to answer a close frame.
    func startClosingDeadline(now: MonotonicInstant) {
        if case .closing = state.phase { deadline = now + options.closeTimeout }
    }

    func deadlinePassed() {
        if pendingViolation != nil { return failForPendingViolation() }
        if openingTransfer != nil {
            endOpening(failure: ConnectError.timedOut("the WebSocket opening handshake took longer than its timeout"))
            return
        }
        drop(because: "the server did not answer the close frame within \(options.closeTimeout)")
    }

    func keepAlivePingDue(now: MonotonicInstant) {
        guard let interval = options.pingInterval, case .open = state.phase else {
            nextKeepAlivePing = nil
            return
        }
        if keepAlivePingUnanswered {
            return drop(because: "no pong came within the ping interval (\(interval))")
        }
        run((try? state.ping(nextPingPayload())) ?? [])
        keepAlivePingUnanswered = true
        nextKeepAlivePing = now + interval
    }

    // MARK: Writing

    /// Hands waiting frames to the socket until it takes no more; ends the connection once the
    /// last frame before a close went out.
    func flush() {
        while !output.isEmpty {
            var sent = 0
            let code = output[0].bytes.withUnsafeBytes { bytes in
                curl_easy_send(handle.raw, bytes.baseAddress! + outputOffset, bytes.count - outputOffset, &sent)
            }
            if code == CURLE_AGAIN { return }
            guard code == CURLE_OK else {
                socketEnded(reason: "sending failed: \(handle.errorMessage(for: code))", code: CURLE_SEND_ERROR)
                return
            }
            outputOffset += sent
            guard outputOffset == output[0].bytes.count else { continue }
            let done = output.removeFirst()
            outputOffset = 0
            done.completion?.resume()
        }
        if closesWhenFlushed { end() }
    }

    // MARK: The end

    /// Ends the connection: the reader, the sends and pings waiting and `close` learn how. The
    /// loop then takes the handle out of the multi handle, which closes the connection.
    func end() {
        guard !isEnded else { return }
        isEnded = true
        // The messages read before the end come before it.
        handOverArrived()
        deadline = nil
        nextKeepAlivePing = nil
        let failure: WebSocketError
        let ending: WebSocketEnding
        switch state.phase {
        case .closed(.closed(let code, let reason)):
            ending = .closed(code: code, reason: reason)
            failure = .closed
        case .closed(.failed(let violation)):
            failure = .protocolViolation(closeCode: violation.closeCode, reason: violation.reason)
            ending = .failed(failure)
        default:
            failure = .dropped(dropReason)
            ending = .failed(failure)
        }
        inbox.end(ending)
        for waiting in output { waiting.completion?.resume(throwing: failure) }
        output.removeAll()
        for waiter in pongWaiters { waiter.continuation.resume(throwing: failure) }
        pongWaiters.removeAll()
        // `close` returns once the connection is closed, saying how.
        for waiter in closeWaiters { waiter.resume(returning: ending) }
        closeWaiters.removeAll()
    }
}
