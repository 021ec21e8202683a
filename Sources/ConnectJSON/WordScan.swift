/// What a JSON string's bytes hold, read a word at a time: whether one of them may need an
/// escape (a control character, a quote, a backslash or a slash, as ``JSONText`` escapes them)
/// and whether they are all ASCII.
///
/// Each test is the classic word-at-a-time one: subtracting a byte value from every byte of a
/// word borrows into a byte's top bit only where the byte was below that value, and the lowest
/// such byte always shows, so "some byte is below 0x20" and "some byte is zero" (after an
/// exclusive or with the byte sought) are exact for the word as a whole.
struct WordScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let tops: UInt64 = 0x8080_8080_8080_8080
    /// `A`s, which need no escape: what fills a word a short string leaves empty.
    private static let padding: UInt64 = 0x4141_4141_4141_4141

    private var flagged: UInt64 = 0
    private var every: UInt64 = 0

    /// Some byte is a control character, `"`, `\` or `/`.
    var mayNeedEscape: Bool { flagged != 0 }
    /// No byte has its top bit set.
    var isASCII: Bool { every & Self.tops == 0 }

    /// Copies `count` bytes from `source` to `destination` and reads them on the way.
    ///
    /// Up to 16 bytes go as two loads and two stores that overlap where the count is not a
    /// power of two, the way `memcpy` moves short blocks, without its call: most keys and
    /// many values are that short. Longer strings are copied by `memcpy` and read where they
    /// were written, a word at a time, the last word overlapping the one before it.
    @inline(__always)
    static func copy(_ count: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) -> WordScan {
        var scan = WordScan()
        switch count {
        case 0:
            break
        case 1...3:
            let first = source.load(as: UInt8.self)
            let middle = source.load(fromByteOffset: count >> 1, as: UInt8.self)
            let last = source.load(fromByteOffset: count - 1, as: UInt8.self)
            destination.storeBytes(of: first, as: UInt8.self)
            destination.storeBytes(of: middle, toByteOffset: count >> 1, as: UInt8.self)
            destination.storeBytes(of: last, toByteOffset: count - 1, as: UInt8.self)
            scan.read(UInt64(first) | UInt64(middle) << 8 | UInt64(last) << 16 | padding << 24)
        case 4...8:
            let low = source.loadUnaligned(as: UInt32.self)
            let high = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            destination.storeBytes(of: low, as: UInt32.self)
            destination.storeBytes(of: high, toByteOffset: count - 4, as: UInt32.self)
            scan.read(UInt64(low) | UInt64(high) << 32)
        case 9...16:
            let low = source.loadUnaligned(as: UInt64.self)
            let high = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            destination.storeBytes(of: low, as: UInt64.self)
            destination.storeBytes(of: high, toByteOffset: count - 8, as: UInt64.self)
            scan.read(low)
            scan.read(high)
        default:
            destination.copyMemory(from: source, byteCount: count)
            var offset = 0
            while offset + 8 <= count {
                scan.read(destination.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            if offset < count { scan.read(destination.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) }
        }
        return scan
    }

    /// Takes in the eight bytes of `word`.
    @inline(__always)
    private mutating func read(_ word: UInt64) {
        flagged |=
            Self.below(0x20, word) | Self.zeroByte(word ^ (Self.ones &* 0x22))
            | Self.zeroByte(word ^ (Self.ones &* 0x5C)) | Self.zeroByte(word ^ (Self.ones &* 0x2F))
        every |= word
    }

    /// Nonzero when some byte of `word` is below `value` (at most 0x80).
    @inline(__always)
    private static func below(_ value: UInt64, _ word: UInt64) -> UInt64 {
        (word &- ones &* value) & ~word & tops
    }

    /// Nonzero when some byte of `word` is zero.
    @inline(__always)
    private static func zeroByte(_ word: UInt64) -> UInt64 {
        below(1, word)
    }
}
