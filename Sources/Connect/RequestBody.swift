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

/// One part of a `multipart/form-data` body.
public struct FormPart: Sendable {
    enum Value: Sendable {
        case text(String)
        case typed(Data, MimeType)
        case file(File)
    }

    /// The form field name.
    public let name: String
    let value: Value

    /// A text field.
    public static func field(_ name: String, _ value: String) -> FormPart {
        FormPart(name: name, value: .text(value))
    }

    /// A field with bytes of a given type (no file name), e.g. a JSON document.
    public static func field(_ name: String, data: Data, mimeType: MimeType) -> FormPart {
        FormPart(name: name, value: .typed(data, mimeType))
    }

    /// A file, sent under its ``File/key``.
    public static func file(_ file: File) -> FormPart {
        FormPart(name: file.key, value: .file(file))
    }

    /// Why this part cannot be sent, or `nil`. Names travel in C strings (a NUL would cut them
    /// short) and in headers (libcurl escapes quotes, CR and LF itself).
    var validationProblem: String? {
        if name.utf8.contains(0) { return "the form field name \(name.debugDescription) contains NUL" }
        switch value {
        case .text(let text):
            if text.utf8.contains(0) { return "the value of form field \(name.debugDescription) contains NUL" }
        case .typed(_, let mimeType):
            if mimeType.rawValue.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                return "the media type of form field \(name.debugDescription) contains CR, LF or NUL"
            }
        case .file(let file):
            if file.name.utf8.contains(0) { return "the file name \(file.name.debugDescription) contains NUL" }
            if file.mimeType.rawValue.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                return "the media type of \(file.name.debugDescription) contains CR, LF or NUL"
            }
            if case .disk(let url) = file.source, !FileManager.default.isReadableFile(atPath: url.path) {
                return "the file \(url.path.debugDescription) cannot be read"
            }
        }
        return nil
    }
}
