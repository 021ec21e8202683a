/// An HTTP request method.
///
/// The common methods are static members (`.get`, `.post`, …); any other token works too:
/// `HTTPMethod(rawValue: "PROPFIND")` or simply `"PROPFIND"` where an `HTTPMethod` is expected.
/// A method that is not a valid HTTP token fails the request with
/// ``ConnectError/invalidRequest(_:)`` before anything is sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as sent on the wire, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire spelling; methods are case-sensitive.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    /// `GET`.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`.
    public static let trace = HTTPMethod(rawValue: "TRACE")

    /// `true` for methods that may be repeated without changing the outcome (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: return true
        default: return false
        }
    }

    /// `true` if `rawValue` is a valid HTTP token (RFC 9110 §5.6.2).
    var isValidToken: Bool {
        !rawValue.isEmpty && HTTPHeader.allBytes(of: rawValue, satisfy: HTTPHeader.isTokenCharacter)
    }
}
