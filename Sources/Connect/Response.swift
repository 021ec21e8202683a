import ConnectFutures
import Foundation

/// A response: status, headers, body and how long it took.
///
/// A cheap value: copies share one storage, and the headers are parsed from the bytes libcurl
/// received only when first read (most requests never look at them).
public struct Response: Sendable, CustomStringConvertible {
    let storage: Storage

    /// The status code, e.g. 200.
    public var statusCode: Int { storage.statusCode }
    /// The headers of the final response, in order.
    public var headers: [HTTPHeader] { storage.headers }
    /// The body, decompressed.
    public var body: Data { storage.body }
    /// The URL that answered, after any redirects.
    public var url: URL { storage.url }
    /// The HTTP version spoken, e.g. `"1.1"` or `"2"`.
    public var httpVersion: String { storage.httpVersion }
    /// Where the time went.
    public var metrics: TransferMetrics { storage.metrics }
    /// The file the body was written to, for requests with a file ``Request/destination``.
    public var fileURL: URL? { storage.fileURL }
    /// Whether the body continued a partial file (a 206 to a resumed download).
    public var resumed: Bool { storage.resumed }

    /// Creates a response; transports and mocks build these.
    public init(statusCode: Int, headers: [HTTPHeader] = [], body: Data = Data(), url: URL, httpVersion: String = "1.1",
                metrics: TransferMetrics = TransferMetrics(), fileURL: URL? = nil, resumed: Bool = false) {
        storage = Storage(statusCode: statusCode, headers: .parsed(headers), body: body, url: url, httpVersion: httpVersion,
                          metrics: metrics, fileURL: fileURL, resumed: resumed)
    }

    /// A response whose headers are still the raw lines received; see ``RawHeaders``.
    init(statusCode: Int, rawHeaders: RawHeaders, body: Data = Data(), url: URL, httpVersion: String = "1.1",
         metrics: TransferMetrics = TransferMetrics(), fileURL: URL? = nil, resumed: Bool = false) {
        storage = Storage(statusCode: statusCode, headers: .raw(rawHeaders), body: body, url: url, httpVersion: httpVersion,
                          metrics: metrics, fileURL: fileURL, resumed: resumed)
    }

    /// This response with other metrics (the redirect follower's totals).
    func with(metrics: TransferMetrics) -> Response {
        Response(storage: Storage(statusCode: statusCode, headers: storage.headerSource, body: body, url: url,
                                  httpVersion: httpVersion, metrics: metrics, fileURL: fileURL, resumed: resumed))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    final class Storage: Sendable {
        enum HeaderSource: Sendable {
            case parsed([HTTPHeader])
            case raw(RawHeaders)
        }

        let statusCode: Int
        let headerSource: HeaderSource
        let body: Data
        let url: URL
        let httpVersion: String
        let metrics: TransferMetrics
        let fileURL: URL?
        let resumed: Bool
        /// The headers parsed from `.raw`, on first read.
        private let parsedHeaders = Locked<[HTTPHeader]?>(nil)

        init(statusCode: Int, headers: HeaderSource, body: Data, url: URL, httpVersion: String, metrics: TransferMetrics,
             fileURL: URL?, resumed: Bool) {
            self.statusCode = statusCode
            self.headerSource = headers
            self.body = body
            self.url = url
            self.httpVersion = httpVersion
            self.metrics = metrics
            self.fileURL = fileURL
            self.resumed = resumed
        }

        var headers: [HTTPHeader] {
            switch headerSource {
            case .parsed(let headers):
                return headers
            case .raw(let raw):
                return parsedHeaders.withLock { parsed in
                    if let parsed { return parsed }
                    let headers = raw.parsed()
                    parsed = headers
                    return headers
                }
            }
        }
    }

    /// The value of the first header named `name`, ignoring case.
    public func header(_ name: String) -> String? {
        if case .raw(let raw) = storage.headerSource { return raw.value(for: name) }
        return headers.value(for: name)
    }

    /// The reason phrase for ``statusCode``, e.g. "Not Found".
    public var reasonPhrase: String { HTTPStatus.reasonPhrase(for: statusCode) }

    public var description: String { "\(statusCode) \(reasonPhrase) (\(body.count) bytes from \(url.absoluteString))" }
}

/// Timings of one exchange, each measured from its start.
public struct TransferMetrics: Sendable, Hashable {
    /// Until the host name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection was made.
    public var connect: Duration
    /// Until the TLS handshake finished (zero for plain HTTP).
    public var tlsHandshake: Duration
    /// Until the first byte of the response arrived.
    public var firstByte: Duration
    /// The whole exchange, redirects included.
    public var total: Duration
    /// How many redirects were followed.
    public var redirectCount: Int
    /// Bytes of the request sent (headers and body).
    public var bytesSent: Int
    /// Bytes of the response body received, before decompression.
    public var bytesReceived: Int
    /// Whether the exchange reused an open connection.
    public var reusedConnection: Bool

    /// Creates metrics; all zero by default.
    public init(nameLookup: Duration = .zero, connect: Duration = .zero, tlsHandshake: Duration = .zero, firstByte: Duration = .zero,
                total: Duration = .zero, redirectCount: Int = 0, bytesSent: Int = 0, bytesReceived: Int = 0, reusedConnection: Bool = false) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
        self.redirectCount = redirectCount
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.reusedConnection = reusedConnection
    }
}

enum HTTPStatus {
    static func reasonPhrase(for code: Int) -> String {
        switch code {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default:
            switch code {
            case 100..<200: return "Informational"
            case 200..<300: return "Success"
            case 300..<400: return "Redirection"
            case 400..<500: return "Client Error"
            case 500..<600: return "Server Error"
            default: return "Unknown Status"
            }
        }
    }
}
