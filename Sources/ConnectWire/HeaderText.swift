/// The rules for header names and tokens as bytes (RFC 9110 §5.1, §5.6.2): one case rule and
/// one token rule for every header Connect reads or sends. Public and inlinable, as
/// ``GrowableBytes`` is, so that they inline into other modules: they run several times per
/// request, byte by byte, from the transport and the request model alike.
public enum HeaderText {
    /// Byte by byte, folding only A–Z: names are ASCII tokens, and this runs several times per
    /// request, where `lowercased()` would build two new strings each time.
    @inlinable
    public static func equalIgnoringASCIICase(_ first: String, _ second: String) -> Bool {
        guard first.utf8.count == second.utf8.count else { return false }
        var first = first
        var second = second
        return first.withUTF8 { a in
            second.withUTF8 { b in equalIgnoringASCIICase(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
    }

    /// The same comparison for bytes as received, e.g. a header line's name.
    @inlinable
    public static func equalIgnoringASCIICase(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer
    ) -> Bool {
        guard first.count == second.count else { return false }
        for index in 0..<first.count where foldedASCII(first[index]) != foldedASCII(second[index]) { return false }
        return true
    }

    /// `text` with A–Z lowered and every other character as it is (``foldedASCII(_:)``): a
    /// header name as a key of a set of names.
    public static func foldedASCII(_ text: String) -> String {
        guard text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return text }
        return String(decoding: text.utf8.map(foldedASCII), as: UTF8.self)
    }

    /// `byte` with A–Z lowered and every other byte as it is: the one case rule for header names.
    /// (Setting the case bit on every byte would also make `^` equal `~` and CR equal `-`.)
    @inlinable @inline(__always)
    public static func foldedASCII(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Over the contiguous UTF-8 of a native string when there is one (the common case), which
    /// is several times faster than stepping through `utf8`. Inlined, so that `predicate` is too:
    /// every request's headers are checked, and a call per byte was most of the cost.
    @inlinable @inline(__always)
    public static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        // `withUTF8` also covers small strings (stored inline, so without contiguous storage of
        // their own), which most header names and values are.
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where !predicate(byte) { return false }
            return true
        }
    }

    /// tchar from RFC 9110 §5.6.2.
    @inlinable @inline(__always)
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
