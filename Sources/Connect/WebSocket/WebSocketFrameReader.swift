/// Reads a server's WebSocket frames from bytes as they arrive, whatever the pieces they come in,
/// refusing what RFC 6455 forbids with the close code it calls for (see
/// ``WebSocketProtocolViolation``):
///
/// - a masked frame (§5.1: a server never masks), reserved bits not negotiated (§5.2: RSV1 only
///   with permessage-deflate), a reserved opcode;
/// - a control frame that is fragmented or longer than 125 bytes (§5.5);
/// - a length not in its fewest bytes, or a 64-bit length with its top bit set (§5.2);
/// - a payload over ``maximumPayload`` (1009).
///
/// A decision value: no socket, tested with tables and fuzzed (`Fuzz/Sources/FuzzWebSocketFrames`).
struct WebSocketFrameReader {
    /// The largest payload one frame may carry.
    let maximumPayload: Int
    /// Whether RSV1 may be set on a message's first frame (permessage-deflate was negotiated).
    let allowsCompression: Bool

    /// The bytes of a frame that began in an earlier read and has not ended yet, from `start`
    /// on (with the frames read after it in the same read).
    private var buffer: [UInt8] = []
    private var start = 0

    init(maximumPayload: Int, allowsCompression: Bool = false) {
        self.maximumPayload = maximumPayload
        self.allowsCompression = allowsCompression
    }

    /// Bytes not yet read as a whole frame.
    var pendingByteCount: Int { buffer.count - start }

    /// Lends `body` the frame that has begun and not ended, its header and the bytes of its
    /// payload so far; returns without calling it when no such frame has its whole header and a
    /// payload byte yet.
    /// What the payload so far already breaks need not wait for the rest (see
    /// ``WebSocketMessageAssembler/checkBeginning(of:payloadSoFar:)``).
    func withPartialFrame(
        _ body: (WebSocketFrame.Header, UnsafeRawBufferPointer) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        guard pendingByteCount > 0, let header = try header(of: buffer[start...]) else { return }
        let payloadStart = start + header.byteCount
        guard payloadStart < buffer.count else { return }
        var failure: WebSocketProtocolViolation?
        buffer.withUnsafeBytes { all in
            do throws(WebSocketProtocolViolation) {
                try body(header, UnsafeRawBufferPointer(rebasing: all[payloadStart...]))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Reads the frames in `bytes`, as they came from the connection after the bytes before
    /// them: `body` gets each whole frame's header and payload, until it returns `false`; the
    /// bytes of a frame not yet whole are kept for the next read. Throws at the first frame
    /// that breaks the protocol, as soon as its header shows it (its payload need not have
    /// arrived); the reader is then of no further use: the connection is closed.
    ///
    /// The payload is lent for the call: frames are read where the bytes lie, and copied only
    /// when one spans two reads.
    mutating func read(
        _ bytes: UnsafeRawBufferPointer, _ body: (WebSocketFrame.Header, UnsafeRawBufferPointer) -> Bool
    ) throws(WebSocketProtocolViolation) {
        guard pendingByteCount == 0 else { return try readBuffered(bytes, body) }
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            guard let header = try header(of: rest), rest.count >= header.frameByteCount else { break }
            offset += header.frameByteCount
            let payload = UnsafeRawBufferPointer(rebasing: rest[header.byteCount..<header.frameByteCount])
            guard body(header, payload) else { return }
        }
        if offset < bytes.count { buffer.append(contentsOf: bytes[offset...]) }
    }

    /// ``read(_:_:)`` when a frame began in an earlier read: the bytes go after it, and the
    /// frames are read from the buffer.
    private mutating func readBuffered(
        _ bytes: UnsafeRawBufferPointer, _ body: (WebSocketFrame.Header, UnsafeRawBufferPointer) -> Bool
    ) throws(WebSocketProtocolViolation) {
        if start > 0, start >= buffer.count / 2 {
            // What was read is dropped once it is half the buffer: each byte moves at most once
            // more than it is read.
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
        while let header = try header(of: buffer[start...]), buffer.count - start >= header.frameByteCount {
            let payloadStart = start + header.byteCount
            let frameEnd = start + header.frameByteCount
            start = frameEnd
            let goesOn = buffer.withUnsafeBytes { all in
                body(header, UnsafeRawBufferPointer(rebasing: all[payloadStart..<frameEnd]))
            }
            guard goesOn else { break }
        }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
    }

    /// The header at the start of `bytes`, checked; `nil` until all of its bytes are there.
    func header<Bytes: RandomAccessCollection<UInt8>>(
        of bytes: Bytes
    ) throws(WebSocketProtocolViolation) -> WebSocketFrame.Header? where Bytes.Index == Int {
        let base = bytes.startIndex
        let available = bytes.count
        guard available >= 2 else { return nil }
        let first = bytes[base]
        let second = bytes[base + 1]
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        if first & 0x30 != 0 || (isCompressed && !allowsCompression) {
            throw .protocolError("a frame has reserved bits set (0x\(String(first >> 4 & 0x7, radix: 16)))")
        }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw .protocolError("a frame has the reserved opcode 0x\(String(first & 0x0F, radix: 16))")
        }
        if second & 0x80 != 0 { throw .protocolError("a server's frame is masked") }
        if isCompressed, opcode == .continuation || opcode.isControl {
            throw .protocolError("RSV1 is set on a \(opcode) frame; only a message's first frame may carry it")
        }

        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(bytes[base + 2]) << 8 | UInt64(bytes[base + 3])
            headerLength = 4
            if length < 126 { throw .protocolError("a length of \(length) is written in 16 bits") }
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(bytes[base + index]) }
            headerLength = 10
            if length >> 63 != 0 { throw .protocolError("a 64-bit length has its most significant bit set") }
            if length < 65536 { throw .protocolError("a length of \(length) is written in 64 bits") }
        }
        if opcode.isControl {
            if !isFinal { throw .protocolError("a \(opcode) frame is fragmented") }
            if length > UInt64(WebSocketFrame.largestControlPayload) {
                throw .protocolError("a \(opcode) frame carries \(length) bytes; a control frame carries at most 125")
            }
        }
        if length > UInt64(maximumPayload) {
            throw .tooBig("a frame carries \(length) bytes, more than the \(maximumPayload) accepted")
        }
        return WebSocketFrame.Header(
            opcode: opcode, isFinal: isFinal, isCompressed: isCompressed, byteCount: headerLength,
            payloadLength: Int(length))
    }
}

/// What a close frame's payload says (RFC 6455 §5.5.1, §7.4): a status code and a reason, both
/// optional; a code no endpoint may send, a one-byte payload or a reason that is not UTF-8 is a
/// violation.
struct WebSocketClosePayload: Equatable, Sendable {
    /// The status code; `nil` when the payload is empty (1005, "no status", to the application).
    var code: UInt16?
    var reason: String

    init(code: UInt16?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Reads a close frame's payload.
    init(reading payload: [UInt8]) throws(WebSocketProtocolViolation) {
        if payload.isEmpty {
            self.init(code: nil)
            return
        }
        if payload.count == 1 { throw .protocolError("a close frame carries one byte; a status code takes two") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard Self.mayBeSent(code) else {
            throw .protocolError("a close frame carries the status code \(code), which no endpoint may send")
        }
        var validator = UTF8Validator()
        guard validator.accepts(payload[2...]), validator.isComplete else {
            throw .invalidData("a close frame's reason is not UTF-8")
        }
        self.init(code: code, reason: String(decoding: payload[2...], as: UTF8.self))
    }

    /// Whether `code` may travel in a close frame (§7.4.1, §7.4.2, the IANA registry): the
    /// defined 1000–1003 and 1007–1014, and 3000–4999 for libraries and applications. 1004 is
    /// reserved, 1005, 1006 and 1015 are for reporting only, and the rest below 3000 unassigned.
    static func mayBeSent(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The payload as a client sends it: the code, then the reason in UTF-8, cut at a character
    /// boundary so that the whole fits the 125 bytes of a control frame.
    var encoded: [UInt8] {
        guard let code else { return [] }
        var bytes = [UInt8(code >> 8), UInt8(truncatingIfNeeded: code)]
        var room = WebSocketFrame.largestControlPayload - 2
        for character in reason {
            let utf8 = Array(String(character).utf8)
            guard utf8.count <= room else { break }
            bytes += utf8
            room -= utf8.count
        }
        return bytes
    }
}
