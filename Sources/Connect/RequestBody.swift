import Foundation

/// What a request sends after its headers.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case data(Data)
    }

    let content: Content
    /// The `Content-Type` sent with the body unless the request sets one itself.
    public let contentType: String?

    /// Bytes in memory, e.g. an encoded JSON document.
    public static func data(_ data: Data, contentType: String? = nil) -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// `value` encoded with `encoder`, as `application/json`.
    public static func json<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) throws -> RequestBody {
        .data(try encoder.encode(value), contentType: "application/json")
    }

    /// The size in bytes, when known up front.
    public var count: Int? {
        switch content {
        case .data(let data): return data.count
        }
    }

    /// The bytes, when they are in memory.
    public var data: Data? {
        switch content {
        case .data(let data): return data
        }
    }
}
