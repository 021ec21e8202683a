#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One HTTP header field.
///
/// ```swift
/// var headers: [HTTPHeader] {
///     [.accept("application/json"), HTTPHeader(name: "X-Request-ID", value: id)]
/// }
/// ```
/// Names and values are checked before a request is sent: a name that is not an HTTP token, or
/// a CR, LF or NUL in either, fails the request with ``ConnectError/invalidRequest(_:)``, so a
/// value taken from user input can never inject a header or split the request.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    /// The field name, as given (HTTP compares names case-insensitively).
    public let name: String
    /// The field value.
    public let value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }

    /// `Authorization: <value>`.
    public static func authorization(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: value)
    }

    /// `Authorization: Bearer <token>`.
    public static func authorization(bearerToken token: String) -> HTTPHeader {
        authorization("Bearer \(token)")
    }

    /// `Authorization: Basic <base64(username:password)>`.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        authorization("Basic \(Data("\(username):\(password)".utf8).base64EncodedString())")
    }

    /// `Content-Type: <value>`.
    public static func contentType(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: value)
    }

    /// `Accept: <value>`.
    public static func accept(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: value)
    }

    /// `User-Agent: <value>`.
    public static func userAgent(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }

    /// Whether this header has the given name, compared as HTTP does (ignoring case).
    public func hasName(_ other: String) -> Bool {
        Self.equalIgnoringASCIICase(name, other)
    }

    /// Byte by byte, folding only A–Z: names are ASCII tokens, and this runs several times per
    /// request, where `lowercased()` would build two new strings each time.
    static func equalIgnoringASCIICase(_ first: String, _ second: String) -> Bool {
        guard first.utf8.count == second.utf8.count else { return false }
        var first = first
        var second = second
        return first.withUTF8 { a in
            second.withUTF8 { b in equalIgnoringASCIICase(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
    }

    /// The same comparison for bytes as received, e.g. a header line's name.
    static func equalIgnoringASCIICase(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
        guard first.count == second.count else { return false }
        for index in 0..<first.count where foldedASCII(first[index]) != foldedASCII(second[index]) { return false }
        return true
    }

    /// `byte` with A–Z lowered and every other byte as it is: the one case rule for header names.
    /// (Setting the case bit on every byte would also make `^` equal `~` and CR equal `-`.)
    @inline(__always)
    static func foldedASCII(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Why this header cannot be sent, or `nil` if it can.
    var validationProblem: String? {
        if name.isEmpty { return "a header name is empty" }
        if !Self.allBytes(of: name, satisfy: Self.isTokenCharacter) {
            return "the header name \(name.debugDescription) is not a valid HTTP token"
        }
        if !Self.allBytes(of: value, satisfy: { $0 != 0x0D && $0 != 0x0A && $0 != 0x00 }) {
            return "the value of header \(name) contains CR, LF or NUL"
        }
        return nil
    }

    /// Over the contiguous UTF-8 of a native string when there is one (the common case), which
    /// is several times faster than stepping through `utf8`. Inlined, so that `predicate` is too:
    /// every request's headers are checked, and a call per byte was most of the cost.
    @inline(__always)
    static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        // `withUTF8` also covers small strings (stored inline, so without contiguous storage of
        // their own), which most header names and values are.
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where !predicate(byte) { return false }
            return true
        }
    }

    /// tchar from RFC 9110 §5.6.2.
    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
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

extension Array where Element == HTTPHeader {
    /// The value of the first header named `name` (ignoring case).
    public func value(for name: String) -> String? {
        first { $0.hasName(name) }?.value
    }

    /// Whether a header named `name` is present (ignoring case).
    public func contains(name: String) -> Bool {
        contains { $0.hasName(name) }
    }

    /// Adds `body`'s content type and coding, unless a `Content-Type` or `Content-Encoding` is
    /// set already.
    mutating func addBodyHeaders(of body: RequestBody?) {
        guard let body else { return }
        if let contentType = body.contentType, !contains(name: "Content-Type") {
            append(.contentType(contentType))
        }
        if let contentEncoding = body.contentEncoding, !contains(name: "Content-Encoding") {
            append(HTTPHeader(name: "Content-Encoding", value: contentEncoding))
        }
    }
}
