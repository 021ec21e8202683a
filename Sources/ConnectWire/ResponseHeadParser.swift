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
/// without a colon, `Content-Length` values that disagree or cannot be read or that are folded,
/// a transfer coding other than a final `chunked` (Connect asks for none, RFC 9112 §6.1). It
/// also knows when the head has ended, so a connection that closes inside the head is told
/// apart from a response with an empty body, and how the body is framed and coded: chunked or
/// not, and the content codings of every `Content-Encoding` line, in order.
///
/// A plain value: it holds no bytes, only what it has learnt. Interim (1xx) responses and a
/// proxy's answer to `CONNECT` come before the final head; each status line starts over.
package struct ResponseHeadParser {
    /// Why a head is refused.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case malformedStatusLine
        case fieldWithoutColon
        case continuationBeforeAnyField
        case conflictingContentLengths
        case unreadableContentLength
        /// A `Transfer-Encoding` other than `chunked` (or `chunked` not last), which Connect
        /// never asks for.
        case unsupportedTransferCoding
        /// More content codings than ``BodyDecoder/maximumCodings``.
        case tooManyContentCodings
        /// A CR inside a field line (RFC 9110 §5.5: a recipient rejects it or replaces it).
        case carriageReturnInField
        /// The heads of one response together are over ``maximumHeadSize``.
        case headTooLarge
        /// A `Content-Length`, `Content-Encoding` or `Transfer-Encoding` line continued on the
        /// next (obs-fold).
        case foldedFramingField
        /// Found by the transport, not by ``read(_:)``: see ``ConnectionSharing``.
        case http2StatusOnHTTP1Connection

        package var description: String {
            switch self {
            case .malformedStatusLine: return "the status line is not HTTP/<version> <three-digit status>"
            case .fieldWithoutColon: return "a header line has no colon"
            case .continuationBeforeAnyField: return "a folded header line comes before any header"
            case .conflictingContentLengths: return "the response has Content-Length values that disagree"
            case .unreadableContentLength: return "the response's Content-Length is not a number that fits"
            case .unsupportedTransferCoding:
                return "the response has a transfer coding other than a final chunked, which was not asked for"
            case .tooManyContentCodings: return "the response names more content codings than a body has reason to have"
            case .carriageReturnInField: return "a header line holds a CR"
            case .headTooLarge: return "the response head is over \(ResponseHeadParser.maximumHeadSize >> 10) KiB"
            case .foldedFramingField:
                return "a Content-Length, Content-Encoding or Transfer-Encoding line is folded onto the next"
            case .http2StatusOnHTTP1Connection: return "the status line says HTTP/2 on a connection that speaks HTTP/1"
            }
        }
    }

    /// What one line was.
    package enum Line: Equatable {
        /// A status line; a new head starts.
        case status
        /// A `name: value` field.
        case field
        /// A `Content-Length` field, read.
        case contentLength
        /// An obs-fold line (starting with a space or tab) that continues the field before it:
        /// RFC 9112 §5.2 has a user agent join it to that field with a space.
        case continuation
        /// The blank line that ends a head.
        case end
    }

    /// The last status line's code.
    package private(set) var statusCode = 0
    /// The last status line's HTTP version, as ``Response/httpVersion`` names it: "1.0", "1.1",
    /// "2" or "3".
    package private(set) var httpVersion = "1.1"
    /// The final head's length of the body, if it gave one.
    package private(set) var contentLength: Int?
    /// The blank line after a final (non-1xx) status line has come: the head is whole.
    package private(set) var isComplete = false
    /// The body is in the chunked transfer coding.
    package private(set) var isChunked = false
    /// The content codings of the `Content-Encoding` lines, in the order they were applied.
    package private(set) var contentCodings: [ContentDecoder.Coding] = []
    /// A `Content-Encoding` names a coding Connect does not decode: the body is handed on as it
    /// came.
    package private(set) var hasUnknownContentCoding = false
    /// A parser before the first line of a head.
    package init() {}

    private var hasField = false
    /// Bytes of every head of the response so far, interim ones included.
    private var headBytes = 0

    /// The most bytes a response's heads may take together: under libcurl's own limit (300 KiB
    /// in 7.88, which it reports as a receive error), so that Connect decides, the same on
    /// every libcurl.
    package static let maximumHeadSize = 256 << 10
    /// The last field was `Content-Length`, `Content-Encoding` or `Transfer-Encoding`: a folded
    /// line after it would change how the body is read.
    private var lastFieldFramesBody = false

    /// Reads one line, its line ending included.
    package mutating func read(_ line: UnsafeRawBufferPointer) throws(Problem) -> Line {
        headBytes += line.count
        guard headBytes <= Self.maximumHeadSize else { throw .headTooLarge }
        let content = Self.content(of: line)
        if content.isEmpty {
            if statusCode >= 200 { isComplete = true }
            return .end
        }
        if Self.startsWithHTTPVersion(content) {
            statusCode = try Self.statusCode(ofStatusLine: content)
            httpVersion = Self.versionName(ofStatusLine: content)
            contentLength = nil
            isComplete = false
            isChunked = false
            contentCodings = []
            hasUnknownContentCoding = false
            hasField = false
            lastFieldFramesBody = false
            return .status
        }
        guard statusCode != 0 else { throw .malformedStatusLine }
        let first = content[0]
        guard memchr(content.baseAddress!, Int32(UInt8(ascii: "\r")), content.count) == nil else {
            throw .carriageReturnInField
        }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            guard hasField else { throw .continuationBeforeAnyField }
            // The framing fields are read line by line; one continued on the next line would
            // mean one thing to Connect and another to whoever joins the lines.
            guard !lastFieldFramesBody else { throw .foldedFramingField }
            return .continuation
        }
        guard let found = memchr(content.baseAddress!, Int32(UInt8(ascii: ":")), content.count) else {
            throw .fieldWithoutColon
        }
        let colon = UnsafeRawPointer(found) - content.baseAddress!
        hasField = true
        lastFieldFramesBody = false
        // Only the fields the transport acts on are looked into: those naming the body's length
        // and codings.
        let folded = first | 0x20
        guard folded == UInt8(ascii: "c") || folded == UInt8(ascii: "t"), !isComplete else { return .field }
        let name = UnsafeRawBufferPointer(rebasing: content[..<colon])
        let value = UnsafeRawBufferPointer(rebasing: content[(colon + 1)...])
        if Self.equalsIgnoringCase(name, "content-length") {
            let length = try Self.contentLength(value)
            if let contentLength, contentLength != length { throw .conflictingContentLengths }
            contentLength = length
            lastFieldFramesBody = true
            return .contentLength
        }
        if Self.equalsIgnoringCase(name, "content-encoding") {
            try readContentCodings(value)
            lastFieldFramesBody = true
        } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
            try readTransferCodings(value)
            lastFieldFramesBody = true
        }
        return .field
    }

    /// A `Content-Encoding` value: each coding is appended, in order; `identity` names none.
    private mutating func readContentCodings(_ value: UnsafeRawBufferPointer) throws(Problem) {
        for element in Self.listElements(value) {
            let name = String(decoding: element, as: UTF8.self)
            if let coding = ContentDecoder.Coding(headerValue: name) {
                guard contentCodings.count < BodyDecoder.maximumCodings else { throw .tooManyContentCodings }
                contentCodings.append(coding)
            } else if name.lowercased() != "identity" {
                hasUnknownContentCoding = true
            }
        }
    }

    /// A `Transfer-Encoding` value: `chunked`, once and last of all the lines. A response may
    /// carry only the codings its request accepted (RFC 9112 §6.1, §10.1), and Connect accepts
    /// none but chunked.
    private mutating func readTransferCodings(_ value: UnsafeRawBufferPointer) throws(Problem) {
        for element in Self.listElements(value) {
            guard !isChunked, Self.equalsIgnoringCase(element, "chunked") else { throw .unsupportedTransferCoding }
            isChunked = true
        }
    }

    /// The elements of a comma-separated field value, without the blanks around them, empty
    /// ones left out (RFC 9110 §5.6.1).
    package static func listElements(_ value: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer] {
        var elements: [UnsafeRawBufferPointer] = []
        var start = 0
        for index in 0...value.count where index == value.count || value[index] == UInt8(ascii: ",") {
            var first = start, end = index
            while first < end, value[first] == UInt8(ascii: " ") || value[first] == UInt8(ascii: "\t") { first += 1 }
            while end > first, value[end - 1] == UInt8(ascii: " ") || value[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            if first < end { elements.append(UnsafeRawBufferPointer(rebasing: value[first..<end])) }
            start = index + 1
        }
        return elements
    }

    /// `line` without its line ending.
    package static func content(of line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var end = line.count
        if end > 0, line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[..<end])
    }

    /// The reason phrase of a status line that ``read(_:)`` accepted (`HTTP/1.1 404 Gone
    /// Fishing`), when it is neither empty (HTTP/2 has none) nor the standard phrase for
    /// `statusCode`: only then is a string made.
    package static func unusualReasonPhrase(ofStatusLine line: UnsafeRawBufferPointer, statusCode: Int) -> String? {
        let content = Self.content(of: line)
        // After the version come one space, three digits and one space, then the reason.
        let start = versionEnd(ofStatusLine: content) + 5
        var end = content.count
        while end > start, content[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard start < end else { return nil }
        let reason = UnsafeRawBufferPointer(rebasing: content[start..<end])
        let usual = HTTPStatus.reasonPhrase(for: statusCode)
        if usual.utf8CodeUnitCount == reason.count, memcmp(usual.utf8Start, reason.baseAddress!, reason.count) == 0 {
            return nil
        }
        return String(decoding: reason, as: UTF8.self)
    }

    /// Whether a status line is HTTP/2's ("HTTP/2 200").
    package static func isHTTP2StatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        startsWithHTTPVersion(line) && line.count >= 6 && line[5] == UInt8(ascii: "2")
    }

    /// "HTTP/" at the start of a line.
    @inline(__always)
    package static func startsWithHTTPVersion(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
    }

    /// The code in "HTTP/1.1 200 OK", "HTTP/1.0 404" or "HTTP/2 204 ": a known version, one
    /// space, three digits from 100 to 999, then the end or a space and the reason. A code over
    /// 599 is invalid, and RFC 9110 §15 has a client treat it as a server error: it is kept,
    /// and fails as a status outside the accepted ones.
    package static func statusCode(ofStatusLine line: UnsafeRawBufferPointer) throws(Problem) -> Int {
        let count = line.count
        guard count > 5 else { throw .malformedStatusLine }
        // The version: 1.0, 1.1, 2 or 3 (libcurl writes HTTP/2 and HTTP/3 heads as "HTTP/2 …"),
        // 2.0 and 3.0 as well.
        let index = versionEnd(ofStatusLine: line)
        let hasMinor = index == 8
        switch line[5] {
        case UInt8(ascii: "1"):
            guard hasMinor, count > 7, line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1") else {
                throw .malformedStatusLine
            }
        case UInt8(ascii: "2"), UInt8(ascii: "3"):
            guard !hasMinor || (count > 7 && line[7] == UInt8(ascii: "0")) else { throw .malformedStatusLine }
        default:
            throw .malformedStatusLine
        }
        guard count >= index + 4, line[index] == UInt8(ascii: " ") else { throw .malformedStatusLine }
        let hundreds = line[index + 1] &- UInt8(ascii: "0"), tens = line[index + 2] &- UInt8(ascii: "0"),
            ones = line[index + 3] &- UInt8(ascii: "0")
        guard hundreds < 10, tens < 10, ones < 10, count == index + 4 || line[index + 4] == UInt8(ascii: " ") else {
            throw .malformedStatusLine
        }
        let code = Int(hundreds) * 100 + Int(tens) * 10 + Int(ones)
        guard code >= 100 else { throw .malformedStatusLine }
        return code
    }

    /// The version of a status line ``statusCode(ofStatusLine:)`` accepted: "1.0", "1.1", "2"
    /// ("HTTP/2" and "HTTP/2.0") or "3".
    package static func versionName(ofStatusLine line: UnsafeRawBufferPointer) -> String {
        switch line[5] {
        case UInt8(ascii: "2"): return "2"
        case UInt8(ascii: "3"): return "3"
        default: return line[7] == UInt8(ascii: "0") ? "1.0" : "1.1"
        }
    }

    /// Where the version of a line starting "HTTP/" ends: after "HTTP/x.y" when a dot follows
    /// the major digit, after "HTTP/x" otherwise. ``statusCode(ofStatusLine:)`` checks the digits.
    package static func versionEnd(ofStatusLine line: UnsafeRawBufferPointer) -> Int {
        line.count > 6 && line[6] == UInt8(ascii: ".") ? 8 : 6
    }

    /// A `Content-Length` value: digits, or a list of the same digits ("3, 3", which RFC 9112
    /// §6.3 lets a recipient read as one); at most 18 digits, so it fits.
    package static func contentLength(_ value: UnsafeRawBufferPointer) throws(Problem) -> Int {
        var length = -1
        var current = 0
        var digits = 0
        var blankAfterDigits = false
        var index = 0
        // Each value ends at a comma or at the end of the field.
        while true {
            let atEnd = index == value.count
            let byte = atEnd ? UInt8(ascii: ",") : value[index]
            index += 1
            if byte &- UInt8(ascii: "0") < 10 {
                // Blanks may stand around a value, not inside one.
                digits += 1
                guard digits <= 18, !blankAfterDigits else { throw .unreadableContentLength }
                current = current * 10 + Int(byte &- UInt8(ascii: "0"))
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                if digits > 0 { blankAfterDigits = true }
            } else if byte == UInt8(ascii: ",") {
                guard digits > 0 else { throw .unreadableContentLength }
                if length >= 0, length != current { throw .conflictingContentLengths }
                if atEnd { return current }
                length = current
                current = 0
                digits = 0
                blankAfterDigits = false
            } else {
                throw .unreadableContentLength
            }
        }
    }

    /// Compares `bytes` with a lowercase ASCII literal, folding `bytes` alone. Not inlined: one
    /// loop serves every literal, rather than one unrolled copy for each.
    @inline(never)
    package static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercaseASCII: StaticString) -> Bool {
        guard bytes.count == lowercaseASCII.utf8CodeUnitCount else { return false }
        let expected = lowercaseASCII.utf8Start
        for index in 0..<bytes.count where HeaderText.foldedASCII(bytes[index]) != expected[index] {
            return false
        }
        return true
    }
}
