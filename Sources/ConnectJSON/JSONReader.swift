#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parses a JSON text (RFC 8259) into plain Swift values, for code that reads a body whose shape
/// it does not know, such as a failed response's message.
///
/// - An object is `[String: Any]` (a repeated key keeps its last value), an array `[Any]`, a
///   string `String`, `true` and `false` `Bool`, `null` ``JSONNull``.
/// - A number without a fraction or exponent that fits is an `Int`; any other number is a
///   `Double`.
/// - Any value may stand alone at the top (`"text"`, `42`).
///
/// The reader is strict: invalid UTF-8, an unescaped control character, a lone UTF-16
/// surrogate, a leading zero, a trailing comma, a number too large for a `Double`, anything
/// after the value but whitespace, or
/// nesting deeper than ``maximumDepth`` makes the whole text invalid (`nil`), never a partial value.
package struct JSONReader {
    /// Objects and arrays nested deeper than this are refused rather than read by recursion
    /// without bound: the reader may run on a thread with a small stack (512 KiB for a
    /// secondary thread on Darwin), where a debug or sanitizer build's frames are large. A failed
    /// response's body has no reason to nest this deep.
    static let maximumDepth = 128

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value `data` holds, or `nil` if it is not exactly one JSON value.
    package static func value(from data: Data) -> Any? {
        var reader = JSONReader(Array(data))
        guard let value = reader.readValue(depth: 0) else { return nil }
        reader.skipWhitespace()
        return reader.index == reader.bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    private mutating func readValue(depth: Int) -> Any? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return depth < Self.maximumDepth ? readObject(depth: depth + 1) : nil
        case UInt8(ascii: "["): return depth < Self.maximumDepth ? readArray(depth: depth + 1) : nil
        case UInt8(ascii: "\""): return readString()
        case UInt8(ascii: "t"): return readLiteral("true", as: true)
        case UInt8(ascii: "f"): return readLiteral("false", as: false)
        case UInt8(ascii: "n"): return readLiteral("null", as: JSONNull())
        default: return readNumber()
        }
    }

    private mutating func readObject(depth: Int) -> [String: Any]? {
        index += 1
        var object: [String: Any] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return object }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = readString() else { return nil }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")), let value = readValue(depth: depth) else { return nil }
            object[key] = value
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}")) ? object : nil
        }
    }

    private mutating func readArray(depth: Int) -> [Any]? {
        index += 1
        var array: [Any] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return array }
        while true {
            guard let value = readValue(depth: depth) else { return nil }
            array.append(value)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]")) ? array : nil
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func readLiteral(_ literal: StaticString, as value: Any) -> Any? {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        let matches = literal.withUTF8Buffer { expected in
            expected.indices.allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { return nil }
        index += count
        return value
    }

    /// A string from its opening quote; its text is checked to be UTF-8.
    private mutating func readString() -> String? {
        index += 1
        var text: [UInt8] = []
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                text.append(contentsOf: bytes[runStart..<index])
                index += 1
                return String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                text.append(contentsOf: bytes[runStart..<index])
                index += 1
                guard readEscape(into: &text) else { return nil }
                runStart = index
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// The escape after a backslash, its character appended as UTF-8.
    private mutating func readEscape(into text: inout [UInt8]) -> Bool {
        guard index < bytes.count else { return false }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(letter)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = readHexUnit() else { return false }
            var scalarValue = UInt32(unit)
            if (0xD800..<0xDC00).contains(unit) {
                // A high surrogate must be followed by an escaped low one.
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = readHexUnit(),
                    (0xDC00..<0xE000).contains(low)
                else { return false }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }  // a lone low surrogate
            UTF8.encode(scalar) { text.append($0) }
        default:
            return false
        }
        return true
    }

    private mutating func readHexUnit() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        index += 4
        return unit
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func readNumber() -> Any? {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard skipDigits() else { return nil }
        }
        var isIntegral = true
        if consume(UInt8(ascii: ".")) {
            isIntegral = false
            guard skipDigits() else { return nil }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isIntegral = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard skipDigits() else { return nil }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isIntegral, let integer = Int(text) { return integer }
        // A number too large for a Double (1e400) is refused rather than read as infinity, as
        // JSONSerialization does.
        guard let double = Double(text), double.isFinite else { return nil }
        return double
    }

    /// Skips one or more digits; `false` if there is none.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            index += 1
        }
        return index > start
    }
}
