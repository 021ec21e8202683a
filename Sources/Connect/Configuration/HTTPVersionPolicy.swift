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
        case http3
        case http3Only
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

    /// HTTP/3 (over QUIC) first on `https://` URLs, where the libcurl Connect runs on speaks it:
    /// libcurl tries QUIC and TLS over TCP side by side, and uses HTTP/2 or HTTP/1.1 when QUIC does
    /// not answer within a moment (UDP blocked, a server without QUIC). On `http://` URLs, and on a
    /// libcurl without HTTP/3, it is ``automatic``. ``Response/httpVersion`` says which answered
    /// (`"3"`, `"2"` or `"1.1"`).
    public static let http3 = HTTPVersionPolicy(choice: .http3)

    /// HTTP/3 only, on `https://` URLs: a server that does not answer over QUIC fails the request,
    /// with no fallback. On an `http://` URL, or on a libcurl without HTTP/3, the request fails
    /// before anything is sent with ``ConnectError/invalidRequest(_:)``, whose message names the
    /// linked libcurl and how to get one with HTTP/3 (see <doc:SendingRequests>).
    public static let http3Only = HTTPVersionPolicy(choice: .http3Only)

    /// Why a WebSocket cannot open under this policy, or `nil`: a WebSocket opens with an HTTP/1.1
    /// upgrade, since libcurl speaks neither WebSockets over HTTP/2 (RFC 8441) nor over HTTP/3
    /// (RFC 9220), which `.http3Only` forbids.
    var webSocketProblem: String? {
        guard choice == .http3Only else { return nil }
        return "a WebSocket opens with an HTTP/1.1 upgrade (libcurl has no WebSockets over HTTP/2 or HTTP/3, "
            + "RFC 8441 and RFC 9220), and httpVersion .http3Only allows QUIC only: open it with a Request "
            + "whose httpVersion is .automatic"
    }

    /// Whether a request may go to an origin's advertised HTTP/3 alternative
    /// (``AlternativeServices``): not when it asks for HTTP/1.1 or h2c.
    var allowsHTTP3: Bool {
        switch choice {
        case .automatic, .http3, .http3Only: true
        case .http1Only, .http2WithPriorKnowledge: false
        }
    }

    /// Why a request to a `https` (or not) URL cannot ask for this version from a libcurl that
    /// speaks HTTP/3 (or not), described as `libcurl`; `nil` when it can.
    func problem(isHTTPS: Bool, libcurlHasHTTP3: Bool, libcurl: String) -> String? {
        guard choice == .http3Only else { return nil }
        guard isHTTPS else {
            return "httpVersion .http3Only needs an https URL: HTTP/3 runs over QUIC, which is always encrypted"
        }
        guard libcurlHasHTTP3 else {
            return "httpVersion .http3Only: the libcurl Connect runs on has no HTTP/3 (\(libcurl)); "
                + "build against one made with ngtcp2 and nghttp3 (on Debian 12, libcurl4-gnutls-dev from "
                + "bookworm-backports; on macOS, Homebrew's curl), or ask for .http3, which falls back to HTTP/2"
        }
        return nil
    }

    public var description: String {
        switch choice {
        case .automatic: return "automatic"
        case .http1Only: return "http1Only"
        case .http2WithPriorKnowledge: return "http2WithPriorKnowledge"
        case .http3: return "http3"
        case .http3Only: return "http3Only"
        }
    }
}
