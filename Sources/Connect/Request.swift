import Foundation

/// A request ready to send: what a ``Connector`` is built into, and what middleware adapts.
public struct Request: Sendable, CustomStringConvertible {
    /// The method.
    public var method: HTTPMethod
    /// The full URL, query included.
    public var url: URL
    /// The headers, in order.
    public var headers: [HTTPHeader]
    /// The body, if any.
    public var body: RequestBody?
    /// The longest the whole exchange may take; `nil` uses the configuration's.
    public var timeout: Duration?
    /// Whether retriers may send this request again after it reached the server: `nil` decides
    /// by the method (idempotent ones may be repeated), `true` opts a POST or PATCH in.
    public var allowsRetry: Bool?
    /// Where the response body goes: memory (the default) or a file.
    public var destination: ResponseDestination = .memory
    /// Receives upload and download progress, if set.
    public var progress: ProgressHandler?
    /// For ``Connect/stream(_:bufferSize:)``: where a 2xx body goes, chunk by chunk.
    var streamBuffer: StreamBuffer?

    /// Creates a request.
    public init(method: HTTPMethod = .get, url: URL, headers: [HTTPHeader] = [], body: RequestBody? = nil, timeout: Duration? = nil, allowsRetry: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.allowsRetry = allowsRetry
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
            || HTTPHeader.equalIgnoringASCIICase(scheme, "https") || HTTPHeader.equalIgnoringASCIICase(scheme, "http")
    }

    /// Checks everything that would make the request unsendable or ambiguous on the wire.
    func validate() throws(ConnectError) {
        try validate(urlProblem: Self.problem(with: url))
    }

    /// `validate()` with ``problem(with:)`` for the URL already known (the request builder caches it).
    func validate(urlProblem: String?) throws(ConnectError) {
        guard method.isValidToken else {
            throw .invalidRequest("the method \(method.rawValue.debugDescription) is not a valid HTTP token")
        }
        if let urlProblem { throw .invalidRequest(urlProblem) }
        for header in headers {
            if let problem = header.validationProblem { throw .invalidRequest(problem) }
        }
    }

    /// Why `url` cannot be requested (not http or https, or no host), or `nil` if it can.
    static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme, isHTTPScheme(scheme) else {
            return "the URL \(url.absoluteString.debugDescription) is not http or https"
        }
        // Percent-encoded: decoding would allocate a copy just to see that it is not empty.
        guard let host = url.host(percentEncoded: true), !host.isEmpty else {
            return "the URL \(url.absoluteString.debugDescription) has no host"
        }
        return nil
    }
}
