/// `%XX` escapes (RFC 3986 §2.1), as URLs and some header fields (an `Alt-Svc` protocol-id)
/// carry them: the one decoder, and the one reader of hex digits, for every parser that meets
/// them.
public enum PercentEncoding {
    /// `bytes` with each `%XX` escape decoded; `nil` for a `%` not followed by two hex digits.
    public static func decoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            else { return nil }
            decoded.append(high << 4 | low)
            index += 3
        }
        return decoded
    }

    /// The value of a hex digit of either case; `nil` for any other byte.
    @inlinable @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
