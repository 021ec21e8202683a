#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Puts a server's frames together into messages (RFC 6455 §5.4): a text or binary frame starts
/// a message, continuation frames add to it until one is final, and control frames may come
/// between them. Refuses, with the close code RFC 6455 calls for:
///
/// - a continuation frame with no message to continue, or a new message before the last ended
///   (1002);
/// - text that is not UTF-8, at the first fragment that breaks it (1007), not once it is whole;
/// - a message over ``maximumMessageSize`` (1009), as soon as its fragments pass it;
/// - a close frame whose payload is malformed (see ``WebSocketClosePayload``).
///
/// A decision value, tested with tables and fuzzed with the frame reader.
struct WebSocketMessageAssembler {
    /// What one frame amounts to.
    enum Event: Equatable, Sendable {
        case message(WebSocketMessage)
        case ping([UInt8])
        case pong([UInt8])
        case close(WebSocketClosePayload)
    }

    /// The largest message, all of its fragments together.
    let maximumMessageSize: Int

    /// The message being put together: its kind and the bytes so far.
    private var partial: (isText: Bool, bytes: [UInt8])?
    private var utf8 = UTF8Validator()

    init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether a message has started and not ended.
    var isInsideMessage: Bool { partial != nil }

    /// Takes the next frame; returns what it completes, or `nil` for a fragment that does not.
    mutating func take(_ frame: WebSocketFrame) throws(WebSocketProtocolViolation) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return .close(try WebSocketClosePayload(reading: frame.payload))
        case .text, .binary:
            if partial != nil {
                throw .protocolError("a \(frame.opcode) frame starts a message before the last one ended")
            }
            partial = (frame.opcode == .text, [])
            utf8 = UTF8Validator()
        case .continuation:
            if partial == nil { throw .protocolError("a continuation frame continues no message") }
        }
        guard var message = partial else { return nil }
        let size = message.bytes.count + frame.payload.count
        if size > maximumMessageSize {
            throw .tooBig("a message of more than \(maximumMessageSize) bytes")
        }
        if message.isText, !utf8.accepts(frame.payload) { throw .invalidData("a text message is not UTF-8") }
        partial = nil  // the bytes move rather than copy as they grow
        message.bytes += frame.payload
        guard frame.isFinal else {
            partial = message
            return nil
        }
        if message.isText {
            guard utf8.isComplete else { throw .invalidData("a text message ends inside a character") }
            return .message(.text(String(decoding: message.bytes, as: UTF8.self)))
        }
        return .message(.binary(Data(message.bytes)))
    }
}
