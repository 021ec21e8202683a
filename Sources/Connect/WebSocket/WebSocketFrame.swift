/// One WebSocket frame (RFC 6455 §5.2), its payload unmasked: what ``WebSocketFrameReader``
/// reads from a server and what a client writes, masked, with ``encoded(maskingKey:)``.
struct WebSocketFrame: Equatable, Sendable {
    /// What a frame carries (RFC 6455 §5.2, §11.8); the other values are reserved.
    enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: each whole in one frame of at most 125 bytes, and allowed
        /// between the fragments of a message (RFC 6455 §5.5).
        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// The largest payload a control frame may carry.
    static let largestControlPayload = 125

    /// The last frame of its message (FIN).
    var isFinal: Bool
    /// RSV1: the message this frame starts is compressed (permessage-deflate, RFC 7692).
    var isCompressed: Bool
    var opcode: Opcode
    var payload: [UInt8]

    init(opcode: Opcode, payload: [UInt8], isFinal: Bool = true, isCompressed: Bool = false) {
        self.opcode = opcode
        self.payload = payload
        self.isFinal = isFinal
        self.isCompressed = isCompressed
    }

    /// What a frame's header says, its payload aside: as ``WebSocketFrameReader`` reads it from
    /// a server, where the payload follows in the bytes received.
    struct Header: Equatable, Sendable {
        var opcode: Opcode
        var isFinal: Bool
        var isCompressed: Bool
        /// The header's own bytes: 2 to 10 (a server's frames carry no masking key).
        var byteCount: Int
        var payloadLength: Int

        /// The header's bytes and the payload's.
        var frameByteCount: Int { byteCount + payloadLength }
    }

    /// The frame's header as it would be read (the length field in the fewest bytes, unmasked).
    var header: Header {
        let lengthBytes = payload.count < 126 ? 0 : payload.count < 65536 ? 2 : 8
        return Header(
            opcode: opcode, isFinal: isFinal, isCompressed: isCompressed, byteCount: 2 + lengthBytes,
            payloadLength: payload.count)
    }

    /// The frame a reader read: `header`'s, with `payload` copied.
    init(_ header: Header, payload: UnsafeRawBufferPointer) {
        self.init(
            opcode: header.opcode, payload: Array(payload), isFinal: header.isFinal, isCompressed: header.isCompressed)
    }

    /// The frame as a client puts it on the wire: masked with `maskingKey` (RFC 6455 §5.3: every
    /// client frame is masked, with a key the server cannot predict), its length in the fewest
    /// bytes that hold it.
    func encoded(maskingKey: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 14)
        bytes.append((isFinal ? 0x80 : 0) | (isCompressed ? 0x40 : 0) | opcode.rawValue)
        switch payload.count {
        case ..<126:
            bytes.append(0x80 | UInt8(payload.count))
        case ..<65536:
            bytes.append(0x80 | 126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(truncatingIfNeeded: payload.count))
        default:
            bytes.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
            }
        }
        let key = (0..<4).map { UInt8(truncatingIfNeeded: maskingKey >> (24 - 8 * $0)) }
        bytes += key
        let headerCount = bytes.count
        bytes += payload
        Self.mask(&bytes, from: headerCount, key: key)
        return bytes
    }

    /// XORs `bytes` from `start` on with the four bytes of `key` in turn (§5.3), eight bytes at
    /// a time: the key repeated in a word, then byte by byte for the rest.
    static func mask(_ bytes: inout [UInt8], from start: Int, key: [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            let count = buffer.count - start
            guard count > 0, let base = buffer.baseAddress.map({ $0 + start }) else { return }
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { for index in 0..<8 { $0[index] = key[index & 3] } }
            var offset = 0
            while offset + 8 <= count {
                let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                base.storeBytes(of: value ^ word, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                base.storeBytes(
                    of: base.load(fromByteOffset: offset, as: UInt8.self) ^ key[offset & 3], toByteOffset: offset,
                    as: UInt8.self)
                offset += 1
            }
        }
    }
}

/// Why a server's frames break RFC 6455, and the status code the client closes the connection
/// with (§7.4.1): 1002 for a protocol error, 1007 for text that is not UTF-8, 1009 for a message
/// over the size the client accepts.
struct WebSocketProtocolViolation: Error, Equatable, Sendable {
    /// The close status code that says what went wrong.
    let closeCode: UInt16
    /// What went wrong, in words, for the typed error and the close frame's reason.
    let reason: String

    static func protocolError(_ reason: String) -> Self { Self(closeCode: 1002, reason: reason) }
    static func invalidData(_ reason: String) -> Self { Self(closeCode: 1007, reason: reason) }
    static func tooBig(_ reason: String) -> Self { Self(closeCode: 1009, reason: reason) }
}
