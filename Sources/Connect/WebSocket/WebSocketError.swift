/// Why a WebSocket operation failed, or why the connection ended other than by the closing
/// handshake.
///
/// A handshake that fails is not one of these: the exchange fails as any request does, with the
/// error handler's error for a status other than 101 and ``ConnectError/transport(_:)`` of kind
/// ``TransportFailure/Kind/webSocketHandshake`` for a 101 that does not complete it.
///
/// ```swift
/// do {
///     for try await message in socket.messages { handle(message) }
/// } catch WebSocketError.dropped {
///     reconnect()
/// }
/// ```
public enum WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection is closed (or closing): nothing more can be sent. Its close code and
    /// reason, if the server sent them, are in ``WebSocket/closeCode`` and
    /// ``WebSocket/closeReason``.
    case closed
    /// The connection ended without a close frame (status 1006): the server or the network
    /// dropped it, it broke while sending or receiving, or a keep-alive ping went unanswered.
    case dropped(String)
    /// The server broke RFC 6455, so Connect closed the connection with `closeCode` (1002 for a
    /// protocol error, 1007 for text that is not UTF-8, 1009 for a message over
    /// ``WebSocketOptions/maximumMessageSize``).
    case protocolViolation(closeCode: UInt16, reason: String)
    /// The application asked for something the protocol does not allow: a close code a close
    /// frame may not carry, a ping payload over 125 bytes.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .closed: "The WebSocket connection is closed"
        case .dropped(let reason): "The WebSocket connection was dropped without a close frame: \(reason)"
        case .protocolViolation(let code, let reason): "The server broke the WebSocket protocol (\(code)): \(reason)"
        case .invalidArgument(let reason): "Invalid WebSocket operation: \(reason)"
        }
    }
}
