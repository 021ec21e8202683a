internal import ConnectWire
import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        do {
            return try decoder.decodeBody(Output.self, from: response.body)
        } catch let failure as DecodingFailure {
            throw ConnectError.decoding(failure)
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
        guard let text = Self.text(response.body, in: encoding) else {
            let context = DecodingError.Context(
                codingPath: [], debugDescription: "The body is not valid \(encoding) text.")
            throw ConnectError.decoding(
                DecodingFailure(type: String.self, error: .dataCorrupted(context), body: response.body))
        }
        return text
    }

    /// `data` as text in `encoding`, or `nil` if it holds bytes invalid there.
    ///
    /// Windows-1252 is decoded here rather than by `String(data:encoding:)`, which decodes it
    /// only in a process that has loaded all of Foundation, not FoundationEssentials alone.
    static func text(_ data: Data, in encoding: String.Encoding) -> String? {
        guard encoding == .windowsCP1252 else { return String(data: data, encoding: encoding) }
        var scalars = String.UnicodeScalarView()
        for byte in data {
            guard let scalar = windows1252Scalar(byte) else { return nil }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// The character a Windows-1252 byte stands for: Latin-1's, except in 0x80–0x9F, where five
    /// bytes stand for none (Unicode's mapping table, cp1252.txt).
    static func windows1252Scalar(_ byte: UInt8) -> Unicode.Scalar? {
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        let value = windows1252High[Int(byte - 0x80)]
        return value == 0 ? nil : Unicode.Scalar(value)
    }

    /// The code points of Windows-1252's bytes 0x80–0x9F; 0 where a byte stands for none.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E,
        0x0178
    ]

    /// The encoding a `Content-Type` header's `charset` parameter names.
    static func encoding(forContentType contentType: String?) -> String.Encoding {
        // Charset names are case-insensitive (RFC 9110 §8.3.2), and so is the parameter's name.
        guard let contentType = contentType?.lowercased(), let range = contentType.firstRange(of: "charset=") else {
            return .utf8
        }
        let name = contentType[range.upperBound...]
            .prefix { $0 != ";" }
            .trimmingHTTPSpaces
            .trimming { $0 == "\"" }
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
