internal import ConnectWire

/// An HTTP request method.
///
/// The common methods are static members (`.get`, `.post`, …); any other token works too:
/// `HTTPMethod(rawValue: "PROPFIND")` or simply `"PROPFIND"` where an `HTTPMethod` is expected.
/// A method that is not a valid HTTP token fails the request with
/// ``ConnectError/invalidRequest(_:)`` before anything is sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as sent on the wire, e.g. `"GET"`.
    public let rawValue: String
    /// What the spelling says about the method, worked out once here rather than for every
    /// request that carries it: most requests use one of the static members below.
    private let traits: Traits

    /// Creates a method from its wire spelling; methods are case-sensitive.
    public init(rawValue: String) {
        self.rawValue = rawValue
        traits = Traits(of: rawValue)
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
    public var isIdempotent: Bool { traits.contains(.idempotent) }

    /// `true` if `rawValue` is a valid HTTP token (RFC 9110 §5.6.2).
    var isValidToken: Bool { traits.contains(.validToken) }

    /// Two methods are the same when they are spelled the same.
    public static func == (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the spelling, which is what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The properties of a method that follow from its spelling alone.
    private struct Traits: OptionSet {
        let rawValue: UInt8

        static let validToken = Traits(rawValue: 1)
        static let idempotent = Traits(rawValue: 2)

        init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        init(of method: String) {
            var traits: Traits = []
            if !method.isEmpty, HeaderText.allBytes(of: method, satisfy: HeaderText.isTokenCharacter) {
                traits.insert(.validToken)
            }
            // Spelled out, not compared with `.get` and the others: the static members are
            // themselves made through here.
            switch method {
            case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": traits.insert(.idempotent)
            default: break
            }
            self = traits
        }
    }
}
