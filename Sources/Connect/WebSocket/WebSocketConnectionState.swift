#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A WebSocket connection's life after the handshake, as a value: what each event (a message, a
/// control frame, a violation, the socket's end, the application's send or close) leads to, as
/// actions for the transport to carry out. RFC 6455 §5.5 and §7:
///
/// - a ping is answered with a pong carrying its payload, while the connection is open;
/// - a close from the server is echoed with its code and the connection then ends; a close the
///   application starts waits for the server's close before the socket is closed;
/// - a violation sends a close with its code (1002, 1007, 1009) and ends the connection;
/// - the socket ending without a close frame is an abnormal closure (1006, never sent);
/// - after a close was sent, nothing more is sent.
struct WebSocketConnectionState {
    /// Where the connection is.
    enum Phase: Equatable, Sendable {
        case open
        /// This side sent a close and waits for the server's.
        case closing
        /// Closed: by the closing handshake (the server's code and reason), or abnormally.
        case closed(Closure)
    }

    /// How a connection ended.
    enum Closure: Equatable, Sendable {
        /// The closing handshake completed; the server's code (`nil`: it sent none) and reason.
        case closed(code: UInt16?, reason: String)
        /// This side failed the connection for a violation of the protocol.
        case failed(WebSocketProtocolViolation)
        /// The socket ended without a close frame (1006).
        case dropped
    }

    /// What the transport does.
    enum Action: Equatable, Sendable {
        /// Writes the frame (masked when it goes out).
        case send(WebSocketFrame)
        /// Hands the message to the reader.
        case deliver(WebSocketMessage)
        /// A pong arrived with this payload: the ping that sent it is answered.
        case pongArrived([UInt8])
        /// Closes the socket: the connection is over.
        case closeSocket
    }

    /// Why the application cannot do what it asked.
    struct Refusal: Error, Equatable, Sendable {
        let reason: String
    }

    private(set) var phase = Phase.open

    /// The frames of one message: at most `fragmentSize` bytes each; compressed by
    /// `compression` first when it makes the message smaller (RSV1 on the first frame).
    static func frames(
        of message: WebSocketMessage, fragmentSize: Int, compression: PermessageDeflate? = nil
    ) -> [WebSocketFrame] {
        let (opcode, plain): (WebSocketFrame.Opcode, [UInt8]) =
            switch message {
            case .text(let text): (.text, Array(text.utf8))
            case .binary(let data): (.binary, Array(data))
            }
        let compressed = compression?.compress(plain)
        let bytes = compressed ?? plain
        let isCompressed = compressed != nil
        guard bytes.count > fragmentSize else {
            return [WebSocketFrame(opcode: opcode, payload: bytes, isCompressed: isCompressed)]
        }
        return stride(from: 0, to: bytes.count, by: fragmentSize).map { start in
            let end = min(bytes.count, start + fragmentSize)
            return WebSocketFrame(
                opcode: start == 0 ? opcode : .continuation, payload: Array(bytes[start..<end]),
                isFinal: end == bytes.count, isCompressed: isCompressed && start == 0)
        }
    }

    /// The application sends `message`, in fragments of at most `fragmentSize` bytes.
    mutating func send(
        _ message: WebSocketMessage, fragmentSize: Int = 1 << 20, compression: PermessageDeflate? = nil
    ) throws(Refusal) -> [Action] {
        guard phase == .open else { throw Refusal(reason: "the connection is closing or closed") }
        return Self.frames(of: message, fragmentSize: max(1, fragmentSize), compression: compression).map(Action.send)
    }

    /// The application pings with `payload` (at most 125 bytes).
    mutating func ping(_ payload: [UInt8]) throws(Refusal) -> [Action] {
        guard phase == .open else { throw Refusal(reason: "the connection is closing or closed") }
        guard payload.count <= WebSocketFrame.largestControlPayload else {
            throw Refusal(reason: "a ping carries at most 125 bytes, not \(payload.count)")
        }
        return [.send(WebSocketFrame(opcode: .ping, payload: payload))]
    }

    /// The application starts the closing handshake with `code` and `reason`.
    mutating func close(code: UInt16, reason: String) throws(Refusal) -> [Action] {
        guard WebSocketClosePayload.mayBeSent(code) else {
            throw Refusal(
                reason: "\(code) is not a status code a close frame may carry (1000-1003, 1007-1014, 3000-4999)")
        }
        guard phase == .open else { return [] }
        phase = .closing
        let payload = WebSocketClosePayload(code: code, reason: reason).encoded
        return [.send(WebSocketFrame(opcode: .close, payload: payload))]
    }

    /// Whether a message from the server goes to the reader: until the connection is closed
    /// (while this side's close waits for the server's too). What ``received(_:)`` decides for a
    /// message (its first case), for a transport that skips the list of actions; the tests hold
    /// the two to the same answer.
    var deliversMessages: Bool {
        if case .closed = phase { return false }
        return true
    }

    /// Something arrived from the server.
    mutating func received(_ event: WebSocketMessageAssembler.Event) -> [Action] {
        switch (event, phase) {
        case (_, .closed):
            return []
        case (.message(let message), _):
            return [.deliver(message)]
        case (.ping(let payload), .open):
            return [.send(WebSocketFrame(opcode: .pong, payload: payload))]
        case (.ping, _):
            return []
        case (.pong(let payload), _):
            return [.pongArrived(payload)]
        case (.close(let payload), .open):
            phase = .closed(.closed(code: payload.code, reason: payload.reason))
            // Echo the code (an empty close for none), then end (§5.5.1).
            let echo = WebSocketClosePayload(code: payload.code).encoded
            return [.send(WebSocketFrame(opcode: .close, payload: echo)), .closeSocket]
        case (.close(let payload), .closing):
            phase = .closed(.closed(code: payload.code, reason: payload.reason))
            return [.closeSocket]
        }
    }

    /// The server broke the protocol: close with the violation's code, and end.
    mutating func failed(_ violation: WebSocketProtocolViolation) -> [Action] {
        let sendsClose = phase == .open
        if case .closed = phase { return [] }
        phase = .closed(.failed(violation))
        let payload = WebSocketClosePayload(code: violation.closeCode, reason: violation.reason).encoded
        return (sendsClose ? [.send(WebSocketFrame(opcode: .close, payload: payload))] : []) + [.closeSocket]
    }

    /// The socket ended (the server closed it, or it broke).
    mutating func socketEnded() -> [Action] {
        if case .closed = phase { return [] }
        phase = .closed(.dropped)
        return [.closeSocket]
    }
}
