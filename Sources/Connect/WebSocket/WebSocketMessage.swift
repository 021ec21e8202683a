#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One WebSocket message (RFC 6455 §5.6): text, valid UTF-8, or bytes.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)
}
