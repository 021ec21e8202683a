import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Tracing

/// Settings shared by every request of one ``Connect`` (NetworkingService's `ApiNetworkConfig`).
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.environment = .custom(URL(string: "https://staging.example.com")!)
/// configuration.defaultHeaders = [.accept("application/json"), HTTPHeader(name: "X-App", value: "demo")]
/// configuration.defaultQueryItems = [QueryItem(name: "locale", value: "en")]
/// configuration.timeout = .seconds(20)
/// let connect = Connect(configuration: configuration)
/// ```
public struct ConnectConfiguration: Sendable {
    /// Which server requests go to; ``ConnectEnvironment/production`` (each connector's own base
    /// URL) by default.
    public var environment: ConnectEnvironment = .production
    /// Headers sent with every request, unless the request has one of the same name.
    public var defaultHeaders: [HTTPHeader] = []
    /// Query items added to every request before its own, unless it has one of the same name.
    public var defaultQueryItems: [QueryItem] = []
    /// Encodes ``Parameter/jsonObject(value:)`` bodies (dates, key strategies…).
    public var jsonEncoder = JSONEncoder()
    /// Decodes bodies for `decoded(toType:)` on this client's futures, unless a call passes its
    /// own decoder (dates, key strategies…).
    public var jsonDecoder = JSONDecoder()
    /// The longest one exchange may take: from the start of an attempt (adapters and a wait
    /// for a token refresh included) through every redirect hop to the last byte of the
    /// response. A retry starts a new attempt with the whole time again; the wait before it is
    /// bounded by the retrier (see ``RetryPolicy/deadline``). 60 seconds by default; a connector
    /// or request can set its own. It must be positive: zero or less fails every request with
    /// ``ConnectError/invalidRequest(_:)`` before anything is sent (for no practical limit, set
    /// a long duration).
    public var timeout: Duration = .seconds(60)
    /// The longest connecting (the name lookup, TCP and TLS) may take. 10 seconds by default.
    /// A request waiting for one of the ``maximumConnectionsPerHost`` connections to come free
    /// is not connecting: its ``timeout`` bounds that wait. A request waiting to share the
    /// connection another request is opening to an HTTP/2 origin is connecting: when that
    /// connection never opens, the requests waiting for it fail with the connect timeout too.
    /// Zero or less fails every request with ``ConnectError/invalidRequest(_:)``, as for
    /// ``timeout``.
    public var connectTimeout: Duration = .seconds(10)
    /// Where observers and the steps after a response run. A global background queue by
    /// default; never the main queue unless you choose it.
    ///
    /// Your code always runs on this queue, though not always on one of its own threads: when a
    /// response arrives with nothing else of the client in flight, Connect's transfer thread
    /// runs the callbacks on the queue itself, as `DispatchQueue.sync` does, which saves a
    /// thread wakeup per request (see <doc:Performance>).
    public var callbackQueue: DispatchQueue = .global()
    /// Runs observers and steps on Connect's transfer thread the moment a response is
    /// complete, instead of handing them to ``callbackQueue`` (which is then not used): no
    /// thread wakes up between a response and your code, or between your code and the next
    /// request it starts. Off by default.
    ///
    /// This is SwiftNIO's model, and its rule applies: code that runs there must never block.
    /// While an observer runs, no transfer of this client moves; an observer that waits for
    /// another request of the same client (a semaphore, `DispatchGroup.wait`, a lock held
    /// across one) waits forever. Hand slow or blocking work to a queue or a `Task` of its own;
    /// `await` on a future is fine, since the awaiting task continues on its own executor. See
    /// <doc:Performance>.
    public var runsCallbacksOnTransferThread = false
    /// The status codes that count as success; others go to the error handler.
    /// ``AcceptedStatusCodes/successful`` (200–299) by default; a connector can set its own.
    public var acceptedStatusCodes: AcceptedStatusCodes = .successful
    /// The largest response body kept in memory; a larger one fails with
    /// ``ConnectError/responseTooLarge(limit:)``. 64 MiB by default; 0 allows only empty bodies,
    /// and a negative size fails every request with ``ConnectError/invalidRequest(_:)``.
    public var maximumResponseBodySize: Int = 64 << 20
    /// How many redirects are followed (http and https only). 10 by default; 0 follows none, and
    /// a negative number fails every request with ``ConnectError/invalidRequest(_:)``.
    public var maximumRedirects: Int = 10
    /// Decides about each redirect (follow, refuse, or follow a modified request); `nil`
    /// follows them all, within ``maximumRedirects``. See ``RedirectHandler``.
    public var redirectHandler: (any RedirectHandler)?
    /// Which HTTP version requests ask for; ``HTTPVersionPolicy/automatic`` (HTTP/2 where the
    /// TLS handshake offers it, HTTP/1.1 otherwise) by default. A connector or request can set
    /// its own.
    public var httpVersion: HTTPVersionPolicy = .automatic
    /// How many connections are opened to one host at most; further requests wait for one.
    /// As many idle connections (at least 16, over every host) are kept for later requests,
    /// beside those in use. At least 1: 0 or less fails every request with
    /// ``ConnectError/invalidRequest(_:)`` (libcurl would read 0 as no limit at all).
    public var maximumConnectionsPerHost: Int = 64
    /// Whether cookies are kept and sent back; ``CookieStorage/none`` by default.
    public var cookies: CookieStorage = .none
    /// A proxy for every request; `nil` (the default) connects directly, whatever proxy the
    /// environment names (`http_proxy` and the like are not read, unless
    /// ``proxiesFromEnvironment`` says so).
    public var proxy: ProxyConfiguration?
    /// The proxies of an environment (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`, by
    /// curl's rules), used when ``proxy`` is `nil`; `nil` (the default) reads none. Set it to
    /// `EnvironmentProxies()` to read the process's environment as it is then.
    public var proxiesFromEnvironment: EnvironmentProxies?
    /// Credentials per host from a `.netrc` file, for requests that carry none of their own;
    /// `nil` (the default) reads none. See ``NetrcFile``.
    public var netrc: NetrcFile?
    /// How connections are made and kept, and how fast each transfer may go: the address family,
    /// the local interface, the DNS cache, idle and total connection ages, rate limits.
    public var connections = ConnectionSettings()
    /// Trust, pinning and client certificates; the system's CAs by default.
    public var tls = TLSConfiguration()
    /// Sent as `User-Agent` unless a request sets its own.
    public var userAgent: String = "Connect/0.1"
    /// Headers whose values are secrets: redacted in `debugResponse` output and withheld from
    /// another origin on a redirect. ``SensitiveHeaders/default`` by default.
    public var sensitiveHeaders: SensitiveHeaders = .default
    /// Whether `debugResponse` output shows the values of ``sensitiveHeaders`` and a password
    /// in the URL. Off by default.
    public var logsSecrets: Bool = false
    /// Where `debugResponse` output goes.
    public var logger: Logger = Logger(label: "connect")
    /// Records a client span for every request on the wire, with OpenTelemetry's HTTP
    /// attributes, and injects the trace context (`traceparent`) into its headers; see
    /// <doc:Tracing>. `nil` uses the tracer bootstrapped with `InstrumentationSystem.bootstrap`,
    /// as it is when the ``Connect`` is made. With neither, nothing is traced.
    public var tracer: (any Tracer)?
    /// Stores responses and answers requests from them, as RFC 9111 allows a private cache; see
    /// ``ResponseCache`` and <doc:Caching>. `nil`, the default: no cache.
    public var cache: ResponseCache?
    /// How requests use ``cache`` unless their connector or the request sets its own policy.
    /// ``CachePolicy/useProtocolCachePolicy`` by default.
    public var cachePolicy: CachePolicy = .useProtocolCachePolicy
    /// Whether identical GETs and HEADs in flight at the same time share one transfer: the
    /// first goes out, the others wait for its answer, and each gets it, or its failure; `false`
    /// by default. Identical means the same URL, headers in order, credentials, route, HTTP
    /// version and cache policy, without a body or transfer options (see <doc:Resilience>).
    /// Each caller may cancel alone; the transfer ends when the last one leaves. A connector or
    /// request may choose otherwise (``Connector/coalescesIdenticalRequests``).
    public var coalescesIdenticalRequests = false
    /// Whether origins that advertise HTTP/3 in `Alt-Svc` are reached over it on later requests,
    /// and where what they advertised is kept: ``AlternativeServices/ignored`` by default. Takes a
    /// libcurl with HTTP/3 (see <doc:SendingRequests>).
    public var alternativeServices: AlternativeServices = .ignored

    /// The default configuration.
    public init() {}
}
