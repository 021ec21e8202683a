#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a request sends after its headers.
public struct RequestBody: Sendable {
    /// Indirect: `Data` and `URL` have a layout known only at run time, so an enum holding them
    /// inline would make every `RequestBody?` copy, check and destroy a call into the Swift
    /// runtime; boxed, it is one reference.
    indirect enum Content: Sendable {
        case data(Data)
        case file(URL, size: Int64)
        case multipart([FormPart])
        case stream(StreamedBody)
    }

    let content: Content
    /// The `Content-Type` sent with the body unless the request sets one itself. For multipart
    /// bodies libcurl writes it, with the boundary.
    public let contentType: String?
    /// The `Content-Encoding` sent with the body unless the request sets one itself: the
    /// codings ``compressed(_:)`` applied, in order (`gzip`, or `gzip, br`); `nil` for a body
    /// sent as it is.
    public let contentEncoding: String?

    init(content: Content, contentType: String?, contentEncoding: String? = nil) {
        self.content = content
        self.contentType = contentType
        self.contentEncoding = contentEncoding
    }

    /// Bytes in memory, e.g. an encoded JSON document.
    public static func data(_ data: Data, contentType: String? = nil) -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// `value` encoded with `encoder`, as `application/json`.
    public static func json<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder = JSONEncoder()
    ) throws -> RequestBody {
        do {
            return .data(try JSONBodyWriter.encode(value, with: encoder), contentType: "application/json")
        } catch let mistake as JSONWriterMistake {
            throw ConnectError.invalidRequest(mistake.description)
        }
    }

    /// A file on disk as the whole body (e.g. a PUT to object storage), streamed from disk.
    ///
    /// - Throws: ``ConnectError/invalidRequest(_:)`` if the file cannot be read.
    public static func file(_ url: URL, contentType: String? = "application/octet-stream") throws -> RequestBody {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            // A `UInt`, or an `NSNumber` that casts to one where Foundation reports it.
            let size = (attributes[.size] as? UInt).map(Int64.init),
            FileManager.default.isReadableFile(atPath: url.path)
        else {
            throw ConnectError.invalidRequest("the file \(url.path.debugDescription) cannot be read")
        }
        return RequestBody(content: .file(url, size: size), contentType: contentType)
    }

    /// A `multipart/form-data` body: files and fields, encoded by libcurl.
    public static func multipart(_ parts: [FormPart]) -> RequestBody {
        RequestBody(content: .multipart(parts), contentType: nil)
    }

    /// Bytes produced by an `AsyncSequence` while the request is sent, never collected whole:
    /// a generated export, a file read in chunks, an `HTTPBody` passed on.
    ///
    /// ```swift
    /// let body = RequestBody.stream(rows.map { Data($0.csvLine.utf8) }, contentType: "text/csv")
    /// ```
    /// The sequence is pulled only as fast as the request goes out: at most 256 KiB wait
    /// between it and the socket. With `count`, it is sent as `Content-Length` and the sequence
    /// must produce exactly that many bytes; without, the body goes out chunked. An error the
    /// sequence throws fails the request with that error.
    ///
    /// A sequence can be read once, so a request with this body is not retried or redirected
    /// with its body after the sequence was read: that fails with a ``TransportFailure`` of kind
    /// ``TransportFailure/Kind/bodyNotReplayable``. Use ``stream(count:contentType:replayable:)``
    /// when the bytes can be produced again.
    ///
    /// - Parameters:
    ///   - bytes: chunks of bytes (`Data`, `[UInt8]`, `ArraySlice<UInt8>`, …), in order.
    ///   - count: the number of bytes, when known.
    ///   - contentType: the `Content-Type` sent unless the request sets one.
    public static func stream<Bytes: AsyncSequence & Sendable>(
        _ bytes: Bytes, count: Int? = nil, contentType: String? = "application/octet-stream"
    ) -> RequestBody where Bytes.Element: DataProtocol {
        let body = StreamedBody(count: count, isReplayable: false) {
            { inlet in try await StreamedBody.pour(bytes, into: inlet) }
        }
        return RequestBody(content: .stream(body), contentType: contentType)
    }

    /// Bytes produced by a new `AsyncSequence` for every send, so that retries, redirects that
    /// keep the body, and libcurl's own resends on a new connection can send it again.
    ///
    /// ```swift
    /// let body = RequestBody.stream(count: size, replayable: { FileChunks(path: path) })
    /// ```
    /// Otherwise as ``stream(_:count:contentType:)``.
    ///
    /// - Parameters:
    ///   - count: the number of bytes every sequence produces, when known.
    ///   - contentType: the `Content-Type` sent unless the request sets one.
    ///   - makeBytes: makes a sequence that produces the body from its start.
    public static func stream<Bytes: AsyncSequence & Sendable>(
        count: Int? = nil, contentType: String? = "application/octet-stream",
        replayable makeBytes: @escaping @Sendable () -> Bytes
    ) -> RequestBody where Bytes.Element: DataProtocol {
        let body = StreamedBody(count: count, isReplayable: true) {
            { inlet in try await StreamedBody.pour(makeBytes(), into: inlet) }
        }
        return RequestBody(content: .stream(body), contentType: contentType)
    }

    /// The size in bytes, when known up front (not for multipart bodies, which libcurl sizes,
    /// nor for streams that did not declare it).
    public var count: Int? {
        switch content {
        case .data(let data): return data.count
        case .file(_, let size): return Int(size)
        case .multipart: return nil
        case .stream(let body): return body.count
        }
    }

    /// Whether the body can be sent again, as a retry or a redirect may: `false` only for a
    /// one-time ``stream(_:count:contentType:)``.
    public var isReplayable: Bool {
        if case .stream(let body) = content { return body.isReplayable }
        return true
    }

    /// A one-time stream that was read: the request cannot be sent again.
    var isSpent: Bool {
        if case .stream(let body) = content { return body.isSpent }
        return false
    }

    /// The body is one block in memory (``data``), told without copying it.
    var isData: Bool {
        if case .data = content { return true }
        return false
    }

    /// The bytes, when the body is one block in memory.
    public var data: Data? {
        if case .data(let data) = content { return data }
        return nil
    }
}
