import ConnectFutures
import Foundation

/// Turns a response into a value (NetworkingService's `ResponseDecoder`).
///
/// ```swift
/// connect.response(TodoConnector.get(id: 1)).decoded(with: JSONResponseDecoder<Todo>())
/// connect.response(PageConnector.home).decoded(with: StringResponseDecoder())
/// ```
public protocol ResponseDecoder: Sendable {
    /// What it produces.
    associatedtype Output: Sendable
    /// The value in `response`; throwing fails the future with that error.
    func decode(_ response: Response) throws -> Output
}

/// JSON into a `Decodable`, with a decoder you configure (dates, key strategies). An empty body
/// decodes to an `EmptyDecodable` type such as `EmptyResponse`.
public struct JSONResponseDecoder<Output: Decodable & Sendable>: ResponseDecoder {
    /// The decoder used.
    public let decoder: JSONDecoder

    /// Creates a decoder.
    public init(_ type: Output.Type = Output.self, decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    public func decode(_ response: Response) throws -> Output {
        if response.body.isEmpty, let empty = Output.self as? any EmptyDecodable.Type {
            return empty.init() as! Output
        }
        do {
            return try decoder.decode(Output.self, from: response.body)
        } catch let error as DecodingError {
            throw ConnectError.decoding(DecodingFailure(type: Output.self, error: error, body: response.body))
        }
    }
}

/// The raw body, e.g. an image.
public struct RawDataResponseDecoder: ResponseDecoder {
    /// Creates the decoder.
    public init() {}
    public func decode(_ response: Response) throws -> Data { response.body }
}

/// The body as text, in the charset the response's `Content-Type` names (UTF-8 when it names
/// none); bytes invalid in that charset fail with ``ConnectError/decoding(_:)``.
public struct StringResponseDecoder: ResponseDecoder {
    /// Creates the decoder.
    public init() {}

    public func decode(_ response: Response) throws -> String {
        let encoding = Self.encoding(forContentType: response.header("Content-Type"))
        guard let text = String(data: response.body, encoding: encoding) else {
            let context = DecodingError.Context(codingPath: [], debugDescription: "The body is not valid \(encoding) text.")
            throw ConnectError.decoding(DecodingFailure(type: String.self, error: .dataCorrupted(context), body: response.body))
        }
        return text
    }

    /// The encoding a `Content-Type` header's `charset` parameter names.
    static func encoding(forContentType contentType: String?) -> String.Encoding {
        guard let contentType, let range = contentType.range(of: "charset=", options: .caseInsensitive) else { return .utf8 }
        let name = contentType[range.upperBound...]
            .prefix { $0 != ";" }
            .trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            .lowercased()
        switch name {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "latin1", "latin-1": return .isoLatin1
        case "us-ascii", "ascii": return .ascii
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        case "windows-1252", "cp1252": return .windowsCP1252
        default: return .utf8
        }
    }
}

extension Future where Value == Response {
    /// The value `decoder` finds in the response.
    public func decoded<Decoder: ResponseDecoder>(with decoder: Decoder) -> Future<Decoder.Output> {
        map { try decoder.decode($0) }
    }

    /// The body as text, in the response's charset.
    public func text() -> Future<String> {
        decoded(with: StringResponseDecoder())
    }
}
