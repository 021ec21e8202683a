/// Which HTTP version requests ask for: set for a whole client with
/// ``ConnectConfiguration/httpVersion``, for one endpoint with ``Connector/httpVersion``, or for
/// one hand-built ``Request/httpVersion``.
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.httpVersion = .http2WithPriorKnowledge  // a gRPC-style backend that speaks h2c
/// ```
///
/// Every hop of an exchange (redirects, retries) asks for the same version. The version a
/// response came in is ``Response/httpVersion``.
public struct HTTPVersionPolicy: Sendable, Hashable, CustomStringConvertible {
    enum Choice: Sendable, Hashable {
        case automatic
        case http1Only
        case http2WithPriorKnowledge
    }

    let choice: Choice

    /// HTTP/2 over TLS when the server offers it in the handshake (ALPN), HTTP/1.1 otherwise,
    /// and always HTTP/1.1 without TLS. The default.
    public static let automatic = HTTPVersionPolicy(choice: .automatic)

    /// HTTP/1.1 only, also where the server offers HTTP/2: for servers whose HTTP/2 is broken,
    /// or to compare the two.
    public static let http1Only = HTTPVersionPolicy(choice: .http1Only)

    /// HTTP/2 from the first byte, also on `http://` URLs ("h2c", RFC 9113 section 3.3), for a
    /// server known to speak it: many requests share one connection as streams, without TLS.
    /// A server that does not speak HTTP/2 on that port fails the request; there is no fallback
    /// to HTTP/1.1. On `https://` URLs the version is negotiated in the TLS handshake, as with
    /// ``automatic``.
    ///
    /// Requests to one origin share its HTTP/2 connection; Connect opens another only when that
    /// one closes (a `GOAWAY`, an idle timeout) or reaches the server's stream limit, and the
    /// requests that wait meanwhile share the new one.
    public static let http2WithPriorKnowledge = HTTPVersionPolicy(choice: .http2WithPriorKnowledge)

    public var description: String {
        switch choice {
        case .automatic: return "automatic"
        case .http1Only: return "http1Only"
        case .http2WithPriorKnowledge: return "http2WithPriorKnowledge"
        }
    }
}
