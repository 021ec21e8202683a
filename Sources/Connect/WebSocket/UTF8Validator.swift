/// Checks UTF-8 as it arrives, in pieces cut anywhere: a WebSocket text message must be valid
/// UTF-8 across its fragments (RFC 6455 §8.1), and a client fails the connection (1007) at the
/// first byte that cannot be, not once the message is whole. Accepts exactly what Unicode's
/// well-formed UTF-8 table accepts (no overlong forms, no surrogates, nothing past U+10FFFF).
struct UTF8Validator: Equatable, Sendable {
    /// Continuation bytes the current character still needs.
    private var needed = 0
    /// The range the next continuation byte must fall in (it narrows after E0, ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether the bytes so far end at a character boundary: a message must.
    var isComplete: Bool { needed == 0 }

    /// Reads `bytes`; `false` at the first byte that makes the text invalid, whatever follows.
    mutating func accepts<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        if let accepted = bytes.withContiguousStorageIfAvailable({ accepts(inMemory: UnsafeRawBufferPointer($0)) }) {
            return accepted
        }
        for byte in bytes where !accepts(byte) { return false }
        return true
    }

    /// ``accepts(_:)`` for bytes side by side in memory: eight bytes of ASCII (each below 0x80)
    /// between characters at once, as most of most text is; after eight that are not, the next
    /// 32 one at a time, so that text with few ASCII runs costs what checking each byte costs.
    private mutating func accepts(inMemory bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            if needed == 0, bytes.count - index >= 8,
                bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
                continue
            }
            let end = min(index + 32, bytes.count)
            repeat {
                guard accepts(bytes[index]) else { return false }
                index += 1
            } while index < end
        }
        return true
    }

    /// Reads one byte; `false` if the text cannot continue with it.
    @inline(__always)
    private mutating func accepts(_ byte: UInt8) -> Bool {
        if needed == 0 {
            switch byte {
            case 0x00...0x7F: break
            case 0xC2...0xDF: needed = 1
            case 0xE0: (needed, lower) = (2, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: needed = 2
            case 0xED: (needed, upper) = (2, 0x9F)
            case 0xF0: (needed, lower) = (3, 0x90)
            case 0xF1...0xF3: needed = 3
            case 0xF4: (needed, upper) = (3, 0x8F)
            default: return false
            }
        } else {
            guard byte >= lower, byte <= upper else { return false }
            needed -= 1
            (lower, upper) = (0x80, 0xBF)
        }
        return true
    }
}
