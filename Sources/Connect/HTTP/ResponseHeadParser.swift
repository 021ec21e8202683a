#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a response head one line at a time, as the transport receives it, and refuses what
/// RFC 9112 calls malformed: a status line that is not `HTTP/<version> <3 digits>`, a field line
/// without a colon, `Content-Length` values that disagree or cannot be read. It also knows when
/// the head has ended, so a connection that closes inside the head is told apart from a
/// response with an empty body.
///
/// A plain value: it holds no bytes, only what it has learnt. Interim (1xx) responses and a
/// proxy's answer to `CONNECT` come before the final head; each status line starts over.
struct ResponseHeadParser {
    /// Why a head is refused.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case malformedStatusLine
        case fieldWithoutColon
        case continuationBeforeAnyField
        case conflictingContentLengths
        case unreadableContentLength

        var description: String {
            switch self {
            case .malformedStatusLine: return "the status line is not HTTP/<version> <three-digit status>"
            case .fieldWithoutColon: return "a header line has no colon"
            case .continuationBeforeAnyField: return "a folded header line comes before any header"
            case .conflictingContentLengths: return "the response has Content-Length values that disagree"
            case .unreadableContentLength: return "the response's Content-Length is not a number that fits"
            }
        }
    }

    /// What one line was.
    enum Line: Equatable {
        /// A status line; a new head starts.
        case status
        /// A `name: value` field.
        case field
        /// A `Content-Length` field, read.
        case contentLength
        /// A `Content-Encoding` field.
        case contentEncoding
        /// An obs-fold line (starting with a space or tab) that continues the field before it:
        /// RFC 9112 §5.2 has a user agent join it to that field with a space.
        case continuation
        /// The blank line that ends a head.
        case end
    }

    /// The last status line's code.
    private(set) var statusCode = 0
    /// The final head's length of the body, if it gave one.
    private(set) var contentLength: Int?
    /// The blank line after a final (non-1xx) status line has come: the head is whole.
    private(set) var isComplete = false
    private var hasField = false

    /// Reads one line, its line ending included.
    mutating func read(_ line: UnsafeRawBufferPointer) throws(Problem) -> Line {
        let content = Self.content(of: line)
        if content.isEmpty {
            if statusCode >= 200 { isComplete = true }
            return .end
        }
        if Self.startsWithHTTPVersion(content) {
            statusCode = try Self.statusCode(ofStatusLine: content)
            contentLength = nil
            isComplete = false
            hasField = false
            return .status
        }
        guard statusCode != 0 else { throw .malformedStatusLine }
        let first = content[0]
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            guard hasField else { throw .continuationBeforeAnyField }
            return .continuation
        }
        guard let found = memchr(content.baseAddress!, Int32(UInt8(ascii: ":")), content.count) else { throw .fieldWithoutColon }
        let colon = UnsafeRawPointer(found) - content.baseAddress!
        hasField = true
        // Only the two fields the transport acts on are looked into; both start with "content-".
        guard first | 0x20 == UInt8(ascii: "c"), !isComplete else { return .field }
        let name = UnsafeRawBufferPointer(rebasing: content[..<colon])
        if Self.equalsIgnoringCase(name, "content-length") {
            let length = try Self.contentLength(UnsafeRawBufferPointer(rebasing: content[(colon + 1)...]))
            if let contentLength, contentLength != length { throw .conflictingContentLengths }
            contentLength = length
            return .contentLength
        }
        if Self.equalsIgnoringCase(name, "content-encoding") { return .contentEncoding }
        return .field
    }

    /// `line` without its line ending.
    static func content(of line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var end = line.count
        if end > 0, line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[..<end])
    }

    /// The reason phrase of a status line that ``read(_:)`` accepted (`HTTP/1.1 404 Gone
    /// Fishing`), when it is neither empty (HTTP/2 has none) nor the standard phrase for
    /// `statusCode`: only then is a string made.
    static func unusualReasonPhrase(ofStatusLine line: UnsafeRawBufferPointer, statusCode: Int) -> String? {
        let content = Self.content(of: line).bindMemory(to: UInt8.self)
        // The version holds no space; after it come one space, three digits and one space.
        guard let versionEnd = content.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let start = versionEnd + 5
        var end = content.count
        while end > start, content[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard start < end else { return nil }
        let reason = UnsafeBufferPointer(rebasing: content[start..<end])
        var usual = HTTPStatus.reasonPhrase(for: statusCode)
        let isUsual = usual.withUTF8 { usual in
            usual.count == reason.count && (usual.isEmpty || memcmp(usual.baseAddress!, reason.baseAddress!, usual.count) == 0)
        }
        return isUsual ? nil : String(decoding: reason, as: UTF8.self)
    }

    /// Whether a status line is HTTP/2's ("HTTP/2 200").
    static func isHTTP2StatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        startsWithHTTPVersion(line) && line.count >= 6 && line[5] == UInt8(ascii: "2")
    }

    /// "HTTP/" at the start of a line.
    @inline(__always)
    static func startsWithHTTPVersion(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
    }

    /// The code in "HTTP/1.1 200 OK", "HTTP/1.0 404" or "HTTP/2 204 ": a known version, one
    /// space, three digits from 100 to 599, then the end or a space and the reason.
    static func statusCode(ofStatusLine line: UnsafeRawBufferPointer) throws(Problem) -> Int {
        // The version: 1.0, 1.1, 2 or 3 (libcurl writes HTTP/2 and HTTP/3 heads as "HTTP/2 …").
        var index = 5
        func digit(at position: Int) -> Int? {
            guard position < line.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[position]) else { return nil }
            return Int(line[position] - UInt8(ascii: "0"))
        }
        guard let major = digit(at: index) else { throw .malformedStatusLine }
        index += 1
        switch major {
        case 1:
            guard index + 1 < line.count, line[index] == UInt8(ascii: "."), let minor = digit(at: index + 1), minor <= 1 else {
                throw .malformedStatusLine
            }
            index += 2
        case 2, 3:
            if index < line.count, line[index] == UInt8(ascii: ".") {
                guard digit(at: index + 1) == 0 else { throw .malformedStatusLine }
                index += 2
            }
        default:
            throw .malformedStatusLine
        }
        guard index < line.count, line[index] == UInt8(ascii: " ") else { throw .malformedStatusLine }
        index += 1
        guard let hundreds = digit(at: index), let tens = digit(at: index + 1), let ones = digit(at: index + 2) else {
            throw .malformedStatusLine
        }
        index += 3
        guard index == line.count || line[index] == UInt8(ascii: " ") else { throw .malformedStatusLine }
        let code = hundreds * 100 + tens * 10 + ones
        guard (100...599).contains(code) else { throw .malformedStatusLine }
        return code
    }

    /// A `Content-Length` value: digits, or a list of the same digits ("3, 3", which RFC 9112
    /// §6.3 lets a recipient read as one); at most 18 digits, so it fits.
    static func contentLength(_ value: UnsafeRawBufferPointer) throws(Problem) -> Int {
        var length: Int?
        var current: Int?
        var digits = 0
        var blankAfterDigits = false
        func finish() throws(Problem) {
            guard let value = current else { throw .unreadableContentLength }
            if let length, length != value { throw .conflictingContentLengths }
            length = value
            current = nil
            digits = 0
            blankAfterDigits = false
        }
        for byte in value {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                // Blanks may stand around a value, not inside one.
                digits += 1
                guard digits <= 18, !blankAfterDigits else { throw .unreadableContentLength }
                current = (current ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if digits > 0 { blankAfterDigits = true }
            case UInt8(ascii: ","):
                try finish()
            default:
                throw .unreadableContentLength
            }
        }
        try finish()
        return length!
    }

    /// Compares `bytes` with a lowercase ASCII literal, folding `bytes` alone.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercaseASCII: StaticString) -> Bool {
        guard bytes.count == lowercaseASCII.utf8CodeUnitCount else { return false }
        let expected = lowercaseASCII.utf8Start
        for index in 0..<bytes.count where HTTPHeader.foldedASCII(bytes[index]) != expected[index] {
            return false
        }
        return true
    }
}
