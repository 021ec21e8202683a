internal import ConnectWire
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
        HeaderText.equalIgnoringASCIICase(name, other)
    }

    /// Why this header cannot be sent, or `nil` if it can.
    var validationProblem: String? {
        if name.isEmpty { return "a header name is empty" }
        if !HeaderText.allBytes(of: name, satisfy: HeaderText.isTokenCharacter) {
            return "the header name \(name.debugDescription) is not a valid HTTP token"
        }
        if !HeaderText.allBytes(of: value, satisfy: { $0 != 0x0D && $0 != 0x0A && $0 != 0x00 }) {
            return "the value of header \(name) contains CR, LF or NUL"
        }
        return nil
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

    /// The values of every header named `name` (ignoring case), in order.
    func values(for name: String) -> [String] {
        var values: [String] = []
        for header in self where header.hasName(name) { values.append(header.value) }
        return values
    }

    /// The headers whose names are among `names` (ignoring case), in order.
    func fields(namedAmong names: [String]) -> [HTTPHeader] {
        filter { header in names.contains { header.hasName($0) } }
    }

    /// Whether a header named any of `names` is present (ignoring case).
    func contains(nameAmong names: [String]) -> Bool {
        contains { header in names.contains { header.hasName($0) } }
    }

    /// The headers whose names are none of `foldedNames` (names with A–Z lowered, see
    /// `HeaderText.foldedASCII(_:)`): this array itself, without a copy, when it has
    /// none of them, as most do. One look-up a header, however many names.
    func removingFields(named foldedNames: Set<String>) -> [HTTPHeader] {
        func isNamed(_ header: HTTPHeader) -> Bool { foldedNames.contains(HeaderText.foldedASCII(header.name)) }
        guard let first = firstIndex(where: isNamed) else { return self }
        var kept = Array(self[..<first])
        for header in self[(first + 1)...] where !isNamed(header) { kept.append(header) }
        return kept
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
