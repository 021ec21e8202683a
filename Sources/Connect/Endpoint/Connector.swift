#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Describes one endpoint: where it is, how to call it and with what.
///
/// ```swift
/// enum TodoConnector: Connector {
///     case get(id: Int)
///
///     var baseURL: URL { URL(string: "https://api.example.com")! }
///     var endpoint: String { "/todos/{id}" }
///     var method: HTTPMethod { .get }
///     var headers: [HTTPHeader] { [] }
///     var parameters: (any ParametersRepresentable)? {
///         switch self {
///         case .get(let id): return Parameter.path(key: "id", value: "\(id)")
///         }
///     }
/// }
/// ```
/// `endpoint` is appended to `baseURL`'s path; each `{key}` in it is replaced by the
/// ``Parameter/path(key:value:)`` of that key, percent-encoded as one path segment.
/// A connector is read once, on the thread that calls ``Connect/request(_:debugResponse:)``;
/// it need not be `Sendable`.
///
/// SwiftConnect's five requirements (`baseURL`, `endpoint`, `method`, `headers`, `parameters`)
/// have no default, so a connector that declares one with another type (`[HTTPHeader]?`, say)
/// does not compile. Every other requirement is a setting that is optional and `nil` by default:
/// declare it with its `?` (`var timeout: Duration? { .seconds(10) }`). Declared with another
/// type, it would be a property of the connector's own, which Connect never reads, and the
/// compiler would not say so.
public protocol Connector {
    /// The scheme, host and optional base path, e.g. `https://api.example.com/v2`.
    var baseURL: URL { get }
    /// The path below `baseURL`, which may hold `{key}` templates, e.g. `/users/{id}`.
    var endpoint: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// Headers for this endpoint: `[]` for none.
    var headers: [HTTPHeader] { get }
    /// Query, path and body parameters: `nil` for none.
    var parameters: (any ParametersRepresentable)? { get }
    /// The longest the whole exchange may take; `nil` (the default) uses the configuration's.
    /// Zero or less fails the request with ``ConnectError/invalidRequest(_:)`` before anything
    /// is sent.
    var timeout: Duration? { get }
    /// The status codes that count as success for this endpoint; `nil` (the default) uses the
    /// configuration's.
    var acceptedStatusCodes: AcceptedStatusCodes? { get }
    /// The error handler for this endpoint's failed responses; `nil` (the default) uses the one
    /// `Connect` was made with.
    var errorHandler: (any ErrorHandlerProtocol)? { get }
    /// Whether retriers may repeat this request after it reached the server; `nil` (the
    /// default) decides by the method. Return `true` for a POST that is safe to repeat.
    var allowsRetry: Bool? { get }
    /// The `Idempotency-Key` this endpoint's request carries on every attempt; `nil` (the
    /// default) for none. `.random()` gives each request a key of its own; a key derived from
    /// what the request does stays the same even when the app sends it again later. A request
    /// with a key may be retried as an idempotent one may. See ``IdempotencyKey``.
    var idempotencyKey: IdempotencyKey? { get }
    /// Decides about this endpoint's redirects; `nil` (the default) uses the configuration's.
    var redirectHandler: (any RedirectHandler)? { get }
    /// Which HTTP version this endpoint's requests ask for; `nil` (the default) uses the
    /// configuration's. See ``HTTPVersionPolicy``.
    var httpVersion: HTTPVersionPolicy? { get }
    /// The coding this endpoint's request bodies are compressed with (see
    /// ``RequestBody/compressed(_:)``); `nil` (the default) sends them as they are.
    var bodyCompression: BodyCompression? { get }
    /// A user name and password for a server that asks for them with a challenge (Digest, NTLM,
    /// Negotiate) or takes them as Basic; `nil` (the default) sends none. See ``Credentials``.
    var credentials: Credentials? { get }
    /// A Unix domain socket this endpoint's requests go through instead of TCP, as the Docker and
    /// Podman APIs listen; `nil` (the default) uses the configuration's
    /// ``ConnectionSettings/unixSocketPath``. The base URL still names the host for the `Host`
    /// header (`http://localhost`). A base URL in the `http+unix://` form names its socket itself.
    var unixSocketPath: String? { get }
    /// Where this endpoint's connections go instead of the URL's host and port, tried before the
    /// configuration's ``ConnectionSettings/connectTo`` entries; `nil` (the default) uses the
    /// configuration's alone. See ``ConnectTo``.
    var connectTo: [ConnectTo]? { get }
    /// How this endpoint's requests use the client's ``ResponseCache``; `nil` (the default)
    /// uses the configuration's ``ConnectConfiguration/cachePolicy``.
    var cachePolicy: CachePolicy? { get }
    /// Whether this endpoint's GETs and HEADs share one transfer with identical requests in
    /// flight at the same time; `nil` (the default) uses the configuration's
    /// ``ConnectConfiguration/coalescesIdenticalRequests``.
    var coalescesIdenticalRequests: Bool? { get }
}

extension Connector {
    /// The configuration's timeout.
    public var timeout: Duration? { nil }
    /// The configuration's accepted status codes.
    public var acceptedStatusCodes: AcceptedStatusCodes? { nil }
    /// The client's error handler.
    public var errorHandler: (any ErrorHandlerProtocol)? { nil }
    /// Decided by the method: idempotent requests may be repeated.
    public var allowsRetry: Bool? { nil }
    /// No idempotency key.
    public var idempotencyKey: IdempotencyKey? { nil }
    /// The configuration's redirect handler.
    public var redirectHandler: (any RedirectHandler)? { nil }
    /// The configuration's HTTP version.
    public var httpVersion: HTTPVersionPolicy? { nil }
    /// Bodies sent as they are.
    public var bodyCompression: BodyCompression? { nil }
    /// No credentials.
    public var credentials: Credentials? { nil }
    /// The configuration's socket, if any.
    public var unixSocketPath: String? { nil }
    /// The configuration's entries only.
    public var connectTo: [ConnectTo]? { nil }
    /// The configuration's cache policy.
    public var cachePolicy: CachePolicy? { nil }
    /// The configuration's choice.
    public var coalescesIdenticalRequests: Bool? { nil }
}
