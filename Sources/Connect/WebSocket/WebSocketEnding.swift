/// How a ``WebSocket`` connection ended: what ``WebSocket/close(code:reason:)`` returns and
/// ``WebSocket/ending`` holds.
///
/// ```swift
/// switch try await socket.close() {
/// case .closed(let code, _): print("closed by the handshake, the server said \(code ?? 1005)")
/// case .failed(let error): print("ended without the handshake: \(error)")
/// }
/// ```
public enum WebSocketEnding: Sendable, Hashable, CustomStringConvertible {
    /// The closing handshake completed: the server's close frame, with its code (`nil` when it
    /// carried none) and reason.
    case closed(code: UInt16?, reason: String)
    /// The connection ended without the closing handshake: dropped (``WebSocketError/dropped(_:)``,
    /// which is also how a close ends that the server did not answer within
    /// ``WebSocketOptions/closeTimeout``), or failed for a violation of the protocol
    /// (``WebSocketError/protocolViolation(closeCode:reason:)``).
    case failed(WebSocketError)

    /// Whether the closing handshake completed.
    public var isClean: Bool {
        if case .closed = self { return true }
        return false
    }

    /// How it ended, in words.
    public var description: String {
        switch self {
        case .closed(let code?, let reason) where reason.isEmpty: "closed by the handshake with \(code)"
        case .closed(let code?, let reason): "closed by the handshake with \(code) (\(reason))"
        case .closed(nil, _): "closed by the handshake without a code"
        case .failed(let error): error.description
        }
    }
}
