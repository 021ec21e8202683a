internal import ConnectWire

/// The bytes of JSON's scalars as `JSONEncoder` writes them with its default settings: strings
/// quoted and escaped, integers, finite floating-point numbers. Shared by the two writers of
/// request bodies, ``JSONBodyWriter`` (for `Encodable` values) and ``JSONWriter`` (for
/// ``JSONWritable`` ones), so that both write the same bytes.
enum JSONText {
    /// Appends `string` quoted and escaped; whether it is all ASCII, or `nil` when memory ran out.
    static func appendQuoted(_ string: String, to output: inout GrowableBytes, escapingSlashes: Bool) -> Bool? {
        appendQuoted(string, to: &output, escapingSlashes: escapingSlashes, afterComma: false, beforeColon: false)
    }

    /// Appends an object member's key as ``appendQuoted(_:to:escapingSlashes:)`` does, after a
    /// comma when it is not the first and with the colon after it: in one write where the key
    /// needs no escape, as most keys do. Whether the key is all ASCII, or `nil` when memory ran
    /// out.
    static func appendKey(
        _ key: String, afterComma: Bool, to output: inout GrowableBytes, escapingSlashes: Bool
    ) -> Bool? {
        appendQuoted(key, to: &output, escapingSlashes: escapingSlashes, afterComma: afterComma, beforeColon: true)
    }

    @inline(__always)
    private static func appendQuoted(
        _ string: String, to output: inout GrowableBytes, escapingSlashes: Bool, afterComma: Bool, beforeColon: Bool
    ) -> Bool? {
        // Native and small strings are contiguous UTF-8, read in place; only a bridged one is
        // not, and is made contiguous first.
        if let appended = string.utf8.withContiguousStorageIfAvailable({
            appendQuoted(
                $0, to: &output, escapingSlashes: escapingSlashes, afterComma: afterComma, beforeColon: beforeColon)
        }) {
            return appended
        }
        var contiguous = string
        return contiguous.withUTF8 {
            appendQuoted(
                $0, to: &output, escapingSlashes: escapingSlashes, afterComma: afterComma, beforeColon: beforeColon)
        }
    }

    /// ``appendQuoted(_:to:escapingSlashes:)`` for a string's UTF-8 bytes, with a comma before
    /// and a colon after it as asked.
    ///
    /// Most strings need no escape. Their bytes are copied and checked on the way (see
    /// ``WordScan``), and counted as written only if nothing in them needs an escape; a string
    /// that does is written again, a byte at a time.
    @inline(__always)
    private static func appendQuoted(
        _ utf8: UnsafeBufferPointer<UInt8>, to output: inout GrowableBytes, escapingSlashes: Bool,
        afterComma: Bool, beforeColon: Bool
    ) -> Bool? {
        let count = utf8.count
        let start = afterComma ? 1 : 0
        let length = start + count + (beforeColon ? 3 : 2)
        guard let room = output.roomAtEnd(for: length) else { return nil }
        if afterComma { room[0] = UInt8(ascii: ",") }
        room[start] = UInt8(ascii: "\"")
        let scan = utf8.baseAddress.map { WordScan.copy(count, from: $0, to: room + start + 1) } ?? WordScan()
        if _slowPath(scan.mayNeedEscape) {
            guard !afterComma || output.append(UInt8(ascii: ",")),
                let isASCII = appendEscaped(utf8, to: &output, escapingSlashes: escapingSlashes),
                !beforeColon || output.append(UInt8(ascii: ":"))
            else { return nil }
            return isASCII
        }
        room[start + count + 1] = UInt8(ascii: "\"")
        if beforeColon { room[start + count + 2] = UInt8(ascii: ":") }
        output.didAppend(length)
        return scan.isASCII
    }

    /// ``appendQuoted(_:to:escapingSlashes:)`` for a string with a character to escape, a byte
    /// at a time.
    private static func appendEscaped(
        _ utf8: UnsafeBufferPointer<UInt8>, to output: inout GrowableBytes, escapingSlashes: Bool
    ) -> Bool? {
        var appended = output.append(UInt8(ascii: "\""))
        var allBytes: UInt8 = 0
        for byte in utf8 {
            allBytes |= byte
            guard let escape = needsEscape(byte) ? escape(for: byte, escapingSlashes: escapingSlashes) : nil else {
                appended = output.append(byte) && appended
                continue
            }
            appended = output.append(UInt8(ascii: "\\")) && appended
            if escape != 0 {
                appended = output.append(escape) && appended
            } else {
                for character in [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigit(byte >> 4), hexDigit(byte & 0xF)
                ] {
                    appended = output.append(character) && appended
                }
            }
        }
        appended = output.append(UInt8(ascii: "\"")) && appended
        return appended ? allBytes < 0x80 : nil
    }

    /// Whether `byte` may need an escape: a control character, a quote, a backslash or a slash.
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    /// What follows the backslash that escapes `byte` in a JSON string, as JSONEncoder writes
    /// it: `nil` for a byte written as it is, 0 for a control character written as `\u00XX`.
    private static func escape(for byte: UInt8, escapingSlashes: Bool) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""): return UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): return UInt8(ascii: "\\")
        case UInt8(ascii: "/"): return escapingSlashes ? UInt8(ascii: "/") : nil
        case 0x0A: return UInt8(ascii: "n")
        case 0x0D: return UInt8(ascii: "r")
        case 0x09: return UInt8(ascii: "t")
        case 0x08: return UInt8(ascii: "b")
        case 0x0C: return UInt8(ascii: "f")
        case 0..<0x20: return 0
        default: return nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Appends `value` in decimal; `false` when memory ran out.
    static func appendInteger<Integer: BinaryInteger>(_ value: Integer, to output: inout GrowableBytes) -> Bool {
        // At most 20 digits and a sign (UInt64.max, Int64.min).
        guard let room = output.roomAtEnd(for: 21) else { return false }
        var length = 0
        if value < 0 {
            room[0] = UInt8(ascii: "-")
            length = 1
        }
        let firstDigit = length
        var magnitude = value.magnitude
        repeat {
            room[length] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            length += 1
        } while magnitude > 0
        // The digits came lowest first.
        var low = firstDigit
        var high = length - 1
        while low < high {
            (room[low], room[high]) = (room[high], room[low])
            low += 1
            high -= 1
        }
        output.didAppend(length)
        return true
    }

    /// A finite number as its shortest description, without a trailing `.0`, as JSONEncoder
    /// writes it; `nil` for a NaN or an infinity, which JSON cannot hold.
    static func text<Number: BinaryFloatingPoint & LosslessStringConvertible>(of value: Number) -> String? {
        guard value.isFinite else { return nil }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Appends ASCII text; `false` when memory ran out.
    static func appendASCII(_ text: StaticString, to output: inout GrowableBytes) -> Bool {
        let count = text.utf8CodeUnitCount
        guard let room = output.roomAtEnd(for: count) else { return false }
        for index in 0..<count { room[index] = text.utf8Start[index] }
        output.didAppend(count)
        return true
    }

    /// Appends ASCII text; `false` when memory ran out.
    static func appendASCII(_ text: String, to output: inout GrowableBytes) -> Bool {
        // Read in place when the string is native UTF-8, as it is when Swift made it: `withUTF8`
        // needs a mutable copy, a retain and a release.
        if let appended = text.utf8.withContiguousStorageIfAvailable({ output.append(UnsafeRawBufferPointer($0)) }) {
            return appended
        }
        var text = text
        return text.withUTF8 { output.append(UnsafeRawBufferPointer($0)) }
    }
}
