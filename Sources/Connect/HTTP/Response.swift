internal import ConnectWire
import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The file the body was written to, for a download (``Connect/download(_:to:resuming:progress:maximumRate:debugResponse:)``).
    public var fileURL: URL? { storage.fileURL }
    /// Whether the body continued a partial file (a 206 to a resumed download).
    public var resumed: Bool { storage.resumed }
    /// Where the response came from when the client has a ``ResponseCache``: a stored response
    /// (``CacheStatus/hit``, ``CacheStatus/stale``), one the server confirmed
    /// (``CacheStatus/revalidated``), or the network (``CacheStatus/miss``); `nil` when no cache
    /// took part (none configured, or a request it does not answer, such as a `POST`).
    public var cacheStatus: CacheStatus? { storage.cacheStatus }

    /// Creates a response; transports and mocks build these. `reasonPhrase` is the server's
    /// reason phrase when it is not the standard one for the status (see ``reasonPhrase``).
    public init(
        statusCode: Int, headers: [HTTPHeader] = [], body: Data = Data(), url: URL, httpVersion: String = "1.1",
        metrics: TransferMetrics = TransferMetrics(), fileURL: URL? = nil, resumed: Bool = false,
        reasonPhrase: String? = nil
    ) {
        storage = Storage(
            statusCode: statusCode, headers: .parsed(headers), body: body, url: url, httpVersion: httpVersion,
            metrics: metrics, fileURL: fileURL, resumed: resumed, reasonPhrase: reasonPhrase)
    }

    /// A response whose headers are still the raw lines received; see ``RawHeaders``.
    init(
        statusCode: Int, rawHeaders: RawHeaders, body: Data = Data(), url: URL, httpVersion: String = "1.1",
        metrics: TransferMetrics = TransferMetrics(), fileURL: URL? = nil, resumed: Bool = false,
        reasonPhrase: String? = nil
    ) {
        storage = Storage(
            statusCode: statusCode, headers: .raw(rawHeaders), body: body, url: url, httpVersion: httpVersion,
            metrics: metrics, fileURL: fileURL, resumed: resumed, reasonPhrase: reasonPhrase)
    }

    /// This response with other metrics (the redirect follower's totals).
    func with(metrics: TransferMetrics) -> Response {
        copy(metrics: metrics, cacheStatus: storage.cacheStatus)
    }

    /// This response as the cache hands it on, with where it came from.
    func with(cacheStatus: CacheStatus) -> Response {
        copy(metrics: metrics, cacheStatus: cacheStatus)
    }

    /// This response with `metrics` and `cacheStatus`, its other fields shared.
    private func copy(metrics: TransferMetrics, cacheStatus: CacheStatus?) -> Response {
        Response(
            storage: Storage(
                statusCode: statusCode, headers: storage.headerSource, body: body, url: url,
                httpVersion: httpVersion, metrics: metrics, fileURL: fileURL, resumed: resumed,
                reasonPhrase: storage.reasonPhrase, cacheStatus: cacheStatus))
    }

    /// A response the cache makes from what it stored.
    init(
        statusCode: Int, headers: [HTTPHeader], body: Data, url: URL, httpVersion: String, metrics: TransferMetrics,
        cacheStatus: CacheStatus
    ) {
        storage = Storage(
            statusCode: statusCode, headers: .parsed(headers), body: body, url: url, httpVersion: httpVersion,
            metrics: metrics, fileURL: nil, resumed: false, reasonPhrase: nil, cacheStatus: cacheStatus)
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
        /// The server's reason phrase when it differs from the standard one; `nil` otherwise.
        let reasonPhrase: String?
        let cacheStatus: CacheStatus?
        /// The headers parsed from `.raw`, on first read.
        private let parsedHeaders = Locked<[HTTPHeader]?>(nil)

        init(
            statusCode: Int, headers: HeaderSource, body: Data, url: URL, httpVersion: String, metrics: TransferMetrics,
            fileURL: URL?, resumed: Bool, reasonPhrase: String?, cacheStatus: CacheStatus? = nil
        ) {
            self.statusCode = statusCode
            self.reasonPhrase = reasonPhrase
            self.cacheStatus = cacheStatus
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

    /// The reason phrase the server sent, e.g. "Not Found"; the standard phrase for
    /// ``statusCode`` when it sent none (HTTP/2 has none).
    public var reasonPhrase: String { storage.reasonPhrase ?? HTTPStatus.reasonPhrase(for: statusCode).description }

    public var description: String { "\(statusCode) \(reasonPhrase) (\(body.count) bytes from \(url.absoluteString))" }
}
