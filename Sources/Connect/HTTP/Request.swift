internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request ready to send: what a ``Connector`` is built into, and what middleware adapts.
///
/// A value with copy-on-write storage: a request passes through several steps (the redirect
/// follower, the response check, the transport), each keeping a copy, and copying the fields one
/// by one was most of the request path's retain and release traffic.
public struct Request: Sendable, CustomStringConvertible {
    private var storage: Storage

    /// The method.
    public var method: HTTPMethod {
        get { storage.method }
        _modify { yield &uniqueStorage().method }
    }
    /// The full URL, query included.
    public var url: URL {
        get { storage.url }
        _modify { yield &uniqueStorage().url }
    }
    /// The headers, in order.
    public var headers: [HTTPHeader] {
        get { storage.headers }
        _modify { yield &uniqueStorage().headers }
    }
    /// The body, if any.
    public var body: RequestBody? {
        get { storage.body }
        _modify { yield &uniqueStorage().body }
    }
    /// The longest the whole exchange may take; `nil` uses the configuration's. Zero or less
    /// fails the request with ``ConnectError/invalidRequest(_:)`` before anything is sent.
    public var timeout: Duration? {
        get { storage.timeout }
        _modify { yield &uniqueStorage().timeout }
    }
    /// Whether retriers may send this request again after it reached the server: `nil` decides
    /// by the method (idempotent ones may be repeated), `true` opts a POST or PATCH in.
    public var allowsRetry: Bool? {
        get { storage.allowsRetry }
        _modify { yield &uniqueStorage().allowsRetry }
    }
    /// The key of the request's `Idempotency-Key` header, or `nil` if it has none; setting it
    /// replaces that header. A request with a key may be repeated as an idempotent one may,
    /// unless ``allowsRetry`` is `false`. See ``IdempotencyKey``.
    public var idempotencyKey: IdempotencyKey? {
        get {
            headers.first { $0.hasName(IdempotencyKey.headerName) }.map { IdempotencyKey(headerValue: $0.value) }
        }
        set {
            headers.removeAll { $0.hasName(IdempotencyKey.headerName) }
            if let newValue { headers.append(newValue.header) }
        }
    }
    /// Whether the request may go out more than once after it reached the server: it says so
    /// (``allowsRetry``), or its method is idempotent, or it carries an idempotency key.
    var mayBeRepeated: Bool {
        let allowsRetry = allowsRetry
        let isIdempotent = method.isIdempotent
        // The headers are searched only when the answer depends on them.
        let hasKey = allowsRetry == nil && !isIdempotent && headers.contains(name: IdempotencyKey.headerName)
        return ResendDecision.mayRepeat(
            methodIsIdempotent: isIdempotent, hasIdempotencyKey: hasKey, allowsRetry: allowsRetry)
    }
    /// Which HTTP version to ask for; `nil` uses the configuration's. See ``HTTPVersionPolicy``.
    public var httpVersion: HTTPVersionPolicy? {
        get { storage.httpVersion }
        _modify { yield &uniqueStorage().httpVersion }
    }
    /// A user name and password for a server that asks for them (see ``Credentials``); `nil`
    /// by default.
    public var credentials: Credentials? {
        get { storage.credentials }
        _modify { yield &uniqueStorage().credentials }
    }
    /// A Unix domain socket this request's connection goes through instead of TCP, as
    /// ``ConnectionSettings/unixSocketPath`` but for this request alone (and its redirect hops to
    /// the same origin); `nil`, the default, uses the configuration's. An `http+unix` or
    /// `https+unix` URL names its socket itself.
    public var unixSocketPath: String? {
        get { storage.unixSocketPath }
        _modify { yield &uniqueStorage().unixSocketPath }
    }
    /// Where this request's connections go instead of its URL's host and port, tried before the
    /// configuration's ``ConnectionSettings/connectTo`` entries; see ``ConnectTo``. Empty by
    /// default.
    public var connectTo: [ConnectTo] {
        get { storage.connectTo }
        _modify { yield &uniqueStorage().connectTo }
    }
    /// How this request uses the client's ``ResponseCache``; `nil`, the default, uses the
    /// configuration's ``ConnectConfiguration/cachePolicy``.
    public var cachePolicy: CachePolicy? {
        get { storage.cachePolicy }
        _modify { yield &uniqueStorage().cachePolicy }
    }
    /// Whether this request may share one transfer with identical requests in flight at the
    /// same time (see ``ConnectConfiguration/coalescesIdenticalRequests``); `nil`, the default,
    /// uses the configuration's.
    public var coalescesIdenticalRequests: Bool? {
        get { storage.coalescesIdenticalRequests }
        _modify { yield &uniqueStorage().coalescesIdenticalRequests }
    }
    /// It has no body, or a body of bytes in memory; and no credentials. Read in place, for
    /// every transfer (see `CurlTransfer.isPlain`): the public getters would copy the body and
    /// the credentials, through the runtime's generic witnesses.
    var hasNoCredentialsAndAtMostADataBody: Bool {
        storage.credentials == nil && storage.body?.isData != false
    }
    /// Whether the request names its own socket or connect-to entries: its transfer then sets
    /// options a plain one does not.
    var hasOwnRoute: Bool { storage.unixSocketPath != nil || !storage.connectTo.isEmpty }
    /// Creates a request; each argument is the property of the same name, all of them settable
    /// afterwards too.
    ///
    /// ```swift
    /// let request = Request(
    ///     url: URL(string: "http://localhost/v1.43/info")!, unixSocketPath: "/var/run/docker.sock",
    ///     cachePolicy: .reloadIgnoringLocalCacheData)
    /// ```
    public init(
        method: HTTPMethod = .get, url: URL, headers: [HTTPHeader] = [], body: RequestBody? = nil,
        timeout: Duration? = nil, allowsRetry: Bool? = nil, httpVersion: HTTPVersionPolicy? = nil,
        credentials: Credentials? = nil, unixSocketPath: String? = nil, connectTo: [ConnectTo] = [],
        cachePolicy: CachePolicy? = nil, coalescesIdenticalRequests: Bool? = nil
    ) {
        storage = Storage(
            method: method, url: url, headers: headers, body: body, timeout: timeout, allowsRetry: allowsRetry,
            httpVersion: httpVersion, credentials: credentials, unixSocketPath: unixSocketPath, connectTo: connectTo,
            cachePolicy: cachePolicy, coalescesIdenticalRequests: coalescesIdenticalRequests)
    }

    /// The storage, copied first if another request shares it.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(copying: storage)
        }
        return storage
    }

    /// `@unchecked Sendable`: mutated only through `uniqueStorage()`, so never while shared.
    /// `@exclusivity(unchecked)` for the same reason: the request value's own accesses are
    /// checked statically, and the fields are read on the transfer thread for every transfer.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var url: URL
        @exclusivity(unchecked) var headers: [HTTPHeader]
        @exclusivity(unchecked) var body: RequestBody?
        @exclusivity(unchecked) var timeout: Duration?
        @exclusivity(unchecked) var allowsRetry: Bool?
        @exclusivity(unchecked) var httpVersion: HTTPVersionPolicy?
        @exclusivity(unchecked) var credentials: Credentials?
        @exclusivity(unchecked) var unixSocketPath: String?
        @exclusivity(unchecked) var connectTo: [ConnectTo]
        @exclusivity(unchecked) var cachePolicy: CachePolicy?
        @exclusivity(unchecked) var coalescesIdenticalRequests: Bool?

        init(
            method: HTTPMethod, url: URL, headers: [HTTPHeader], body: RequestBody?, timeout: Duration?,
            allowsRetry: Bool?, httpVersion: HTTPVersionPolicy?, credentials: Credentials?, unixSocketPath: String?,
            connectTo: [ConnectTo], cachePolicy: CachePolicy?, coalescesIdenticalRequests: Bool?
        ) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.allowsRetry = allowsRetry
            self.httpVersion = httpVersion
            self.credentials = credentials
            self.unixSocketPath = unixSocketPath
            self.connectTo = connectTo
            self.cachePolicy = cachePolicy
            self.coalescesIdenticalRequests = coalescesIdenticalRequests
        }

        init(copying other: Storage) {
            method = other.method
            url = other.url
            headers = other.headers
            body = other.body
            timeout = other.timeout
            allowsRetry = other.allowsRetry
            httpVersion = other.httpVersion
            credentials = other.credentials
            unixSocketPath = other.unixSocketPath
            connectTo = other.connectTo
            cachePolicy = other.cachePolicy
            coalescesIdenticalRequests = other.coalescesIdenticalRequests
        }
    }

    public var description: String { "\(method) \(url.absoluteString)" }

    /// Sets a header, replacing any of the same name.
    public mutating func setHeader(_ header: HTTPHeader) {
        headers.removeAll { $0.hasName(header.name) }
        headers.append(header)
    }

    /// "http" or "https", in any case, compared without building a lowercased copy.
    static func isHTTPScheme(_ scheme: String) -> Bool {
        scheme == "https" || scheme == "http"
            || HeaderText.equalIgnoringASCIICase(scheme, "https") || HeaderText.equalIgnoringASCIICase(scheme, "http")
    }

    /// "ws" or "wss", in any case: a WebSocket's URL (see ``Connect/webSocket(_:options:debugResponse:)-(Connector,_,_)``).
    static func isWebSocketScheme(_ scheme: String) -> Bool {
        HeaderText.equalIgnoringASCIICase(scheme, "ws") || HeaderText.equalIgnoringASCIICase(scheme, "wss")
    }

    /// "http+unix" or "https+unix", in any case: a Unix domain socket's path as the host (see
    /// ``UnixSocketURL``).
    static func isUnixSocketScheme(_ scheme: String) -> Bool {
        HeaderText.equalIgnoringASCIICase(scheme, "http+unix")
            || HeaderText.equalIgnoringASCIICase(scheme, "https+unix")
    }

    /// Checks everything that would make the request unsendable or ambiguous on the wire.
    func validate() throws(ConnectError) {
        try validate(urlProblem: Self.problem(with: url))
    }

    /// `validate()` with ``problem(with:)`` for the URL already known (the request builder caches
    /// it), and the headers left out when the builder checked them already.
    func validate(urlProblem: String?, checkingHeaders: Bool = true) throws(ConnectError) {
        guard method.isValidToken else {
            throw .invalidRequest("the method \(method.rawValue.debugDescription) is not a valid HTTP token")
        }
        if let urlProblem { throw .invalidRequest(urlProblem) }
        if let timeoutProblem { throw .invalidRequest(timeoutProblem) }
        guard checkingHeaders else { return }
        var idempotencyKeys = 0
        for header in headers {
            if let problem = header.validationProblem { throw .invalidRequest(problem) }
            if header.hasName(IdempotencyKey.headerName) {
                idempotencyKeys += 1
                if let problem = IdempotencyKey(headerValue: header.value).problem { throw .invalidRequest(problem) }
            }
        }
        // The draft forbids two: a server could not tell which one the request is to be known by.
        if idempotencyKeys > 1 { throw .invalidRequest("the request has \(idempotencyKeys) Idempotency-Key headers") }
    }

    /// Why ``timeout`` cannot work (zero or less), or `nil`. libcurl reads 0 as "no limit" and
    /// Connect hands it at least a millisecond, so such a timeout would otherwise fail the request
    /// a millisecond in, as if the network were slow.
    var timeoutProblem: String? {
        guard let timeout, timeout <= .zero else { return nil }
        return
            "the timeout \(timeout) is not positive: a request's or connector's timeout must be longer than zero (nil uses the configuration's)"
    }

    /// Why `url` cannot be requested (not http, https, a Unix socket URL or a WebSocket URL, or no
    /// host), or `nil` if it can.
    static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme, isHTTPScheme(scheme) || isWebSocketScheme(scheme) else {
            if let scheme = url.scheme, isUnixSocketScheme(scheme) {
                return UnixSocketURL.problem(with: url.absoluteString)
            }
            return "the URL \(url.absoluteString.debugDescription) is not http, https, http+unix, https+unix, ws or wss"
        }
        // Percent-encoded: decoding would allocate a copy just to see that it is not empty.
        guard let host = url.host(percentEncoded: true), !host.isEmpty else {
            return "the URL \(url.absoluteString.debugDescription) has no host"
        }
        return nil
    }
}
