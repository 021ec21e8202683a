import Foundation

/// What a request sends after its headers.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case data(Data)
        case file(URL, size: Int64)
        case multipart([FormPart])
    }

    let content: Content
    /// The `Content-Type` sent with the body unless the request sets one itself. For multipart
    /// bodies libcurl writes it, with the boundary.
    public let contentType: String?

    /// Bytes in memory, e.g. an encoded JSON document.
    public static func data(_ data: Data, contentType: String? = nil) -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// `value` encoded with `encoder`, as `application/json`.
    public static func json<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) throws -> RequestBody {
        .data(try encoder.encode(value), contentType: "application/json")
    }

    /// A file on disk as the whole body (e.g. a PUT to object storage), streamed from disk.
    ///
    /// - Throws: ``ConnectError/invalidRequest(_:)`` if the file cannot be read.
    public static func file(_ url: URL, contentType: String? = "application/octet-stream") throws -> RequestBody {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
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

    /// The size in bytes, when known up front (not for multipart bodies, which libcurl sizes).
    public var count: Int? {
        switch content {
        case .data(let data): return data.count
        case .file(_, let size): return Int(size)
        case .multipart: return nil
        }
    }

    /// The bytes, when the body is one block in memory.
    public var data: Data? {
        if case .data(let data) = content { return data }
        return nil
    }
}
