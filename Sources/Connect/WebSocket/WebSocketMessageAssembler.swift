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
/// - text that is not UTF-8, at the first byte that breaks it (1007), even inside a frame that
///   has not ended (``checkBeginning(of:payloadSoFar:)``), not once the message is whole;
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

    /// Inflates the messages a server compressed, when permessage-deflate was negotiated.
    let compression: PermessageDeflate?

    /// The message being put together: its kind, the bytes so far, and whether they are
    /// compressed (RSV1 on its first frame).
    private var partial: (isText: Bool, bytes: [UInt8], isCompressed: Bool)?
    private var utf8 = UTF8Validator()
    /// The text checked so far of the frame that has begun and not ended: the validator after
    /// it, and how many of its payload's bytes it read. The frame's end goes on from there.
    private var beginning: (utf8: UTF8Validator, checked: Int)?

    init(maximumMessageSize: Int, compression: PermessageDeflate? = nil) {
        self.maximumMessageSize = maximumMessageSize
        self.compression = compression
    }

    /// Whether a message has started and not ended.
    var isInsideMessage: Bool { partial != nil }

    /// Checks the beginning of the next frame, which has not ended: a frame that cannot come
    /// now fails at its header (1002), and uncompressed text that is not UTF-8 at the byte that
    /// breaks it (1007), without waiting for a rest that a server may send slowly or never.
    mutating func checkBeginning(
        of frame: WebSocketFrame.Header, payloadSoFar: UnsafeRawBufferPointer
    ) throws(WebSocketProtocolViolation) {
        var text: UTF8Validator
        switch frame.opcode {
        case .ping, .pong, .close:
            return
        case .text, .binary:
            if partial != nil {
                throw .protocolError("a \(frame.opcode) frame starts a message before the last one ended")
            }
            guard frame.opcode == .text, !frame.isCompressed else { return }
            text = beginning?.utf8 ?? UTF8Validator()
        case .continuation:
            guard let message = partial else { throw .protocolError("a continuation frame continues no message") }
            guard message.isText, !message.isCompressed else { return }
            text = beginning?.utf8 ?? utf8
        }
        let checked = beginning?.checked ?? 0
        guard payloadSoFar.count > checked else { return }
        if !text.accepts(payloadSoFar[checked...]) { throw .invalidData("a text message is not UTF-8") }
        beginning = (text, payloadSoFar.count)
    }

    /// Takes the next frame; returns what it completes, or `nil` for a fragment that does not.
    mutating func take(_ frame: WebSocketFrame) throws(WebSocketProtocolViolation) -> Event? {
        var outcome: Result<Event?, WebSocketProtocolViolation> = .success(nil)
        frame.payload.withUnsafeBytes { payload in
            outcome = Result { () throws(WebSocketProtocolViolation) -> Event? in
                try take(frame.header, payload: payload)
            }
        }
        return try outcome.get()
    }

    /// Takes the next frame, its header and its payload as read (lent for the call); returns
    /// what it completes, or `nil` for a fragment that does not. A message in one frame, the
    /// usual case, is made from the payload with one copy.
    mutating func take(
        _ frame: WebSocketFrame.Header, payload: UnsafeRawBufferPointer
    ) throws(WebSocketProtocolViolation) -> Event? {
        let begun = beginning
        beginning = nil
        switch frame.opcode {
        case .ping: return .ping(Array(payload))
        case .pong: return .pong(Array(payload))
        case .close: return .close(try WebSocketClosePayload(reading: Array(payload)))
        case .text, .binary:
            if partial != nil {
                throw .protocolError("a \(frame.opcode) frame starts a message before the last one ended")
            }
            utf8 = UTF8Validator()
            if frame.isFinal, !frame.isCompressed {
                return .message(try wholeMessage(isText: frame.opcode == .text, payload, begun: begun))
            }
            partial = (frame.opcode == .text, [], frame.isCompressed)
        case .continuation:
            if partial == nil { throw .protocolError("a continuation frame continues no message") }
        }
        guard var message = partial else { return nil }
        try checkSize(message.bytes.count + payload.count)
        // Compressed text is checked once inflated.
        if message.isText, !message.isCompressed { try checkText(payload, begun: begun) }
        partial = nil  // the bytes move rather than copy as they grow
        message.bytes.append(contentsOf: payload)
        guard frame.isFinal else {
            partial = message
            return nil
        }
        if message.isCompressed {
            message.bytes = try inflate(message.bytes)
            if message.isText { try checkText(message.bytes) }
        }
        return .message(try completed(isText: message.isText, message.bytes))
    }

    /// A message in one uncompressed frame: the same checks as a fragmented one's, its value
    /// made straight from the payload.
    private mutating func wholeMessage(
        isText: Bool, _ payload: UnsafeRawBufferPointer, begun: (utf8: UTF8Validator, checked: Int)?
    ) throws(WebSocketProtocolViolation) -> WebSocketMessage {
        try checkSize(payload.count)
        if isText { try checkText(payload, begun: begun) }
        return try completed(isText: isText, payload)
    }

    /// Refuses a message of `size` bytes, so far, past the largest (1009).
    private func checkSize(_ size: Int) throws(WebSocketProtocolViolation) {
        if size > maximumMessageSize { throw .tooBig("a message of more than \(maximumMessageSize) bytes") }
    }

    /// Refuses the next bytes of a text message at the first that breaks UTF-8 (1007).
    private mutating func checkText(_ bytes: some Sequence<UInt8>) throws(WebSocketProtocolViolation) {
        if !utf8.accepts(bytes) { throw .invalidData("a text message is not UTF-8") }
    }

    /// ``checkText(_:)`` for a frame's payload, from where ``checkBeginning(of:payloadSoFar:)``
    /// left it (`begun`) when the frame arrived in more than one read.
    private mutating func checkText(
        _ payload: UnsafeRawBufferPointer, begun: (utf8: UTF8Validator, checked: Int)?
    ) throws(WebSocketProtocolViolation) {
        guard let begun, begun.checked <= payload.count else { return try checkText(payload) }
        utf8 = begun.utf8
        try checkText(payload[begun.checked...])
    }

    /// The message of all of `bytes`: text only if its last character is whole (1007).
    private func completed(
        isText: Bool, _ bytes: some Collection<UInt8>
    ) throws(WebSocketProtocolViolation) -> WebSocketMessage {
        guard isText else { return .binary(Data(bytes)) }
        guard utf8.isComplete else { throw .invalidData("a text message ends inside a character") }
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// A compressed message's bytes inflated, within the largest message.
    private func inflate(_ bytes: [UInt8]) throws(WebSocketProtocolViolation) -> [UInt8] {
        guard let compression else { throw .protocolError("a compressed message without permessage-deflate") }
        do throws(PermessageDeflate.Failure) {
            return try compression.decompress(bytes, limit: maximumMessageSize)
        } catch {
            switch error {
            case .tooBig: throw .tooBig("a compressed message of more than \(maximumMessageSize) bytes inflated")
            case .corrupt(let reason): throw .invalidData("a compressed message does not inflate: \(reason)")
            }
        }
    }
}
