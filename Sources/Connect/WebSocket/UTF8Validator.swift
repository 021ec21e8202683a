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
        for byte in bytes {
            if needed == 0 {
                switch byte {
                case 0x00...0x7F: continue
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
        }
        return true
    }
}
