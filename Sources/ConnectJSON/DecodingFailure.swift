#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A body that could not be decoded into the requested type.
///
/// Its `description` reads like "Could not decode Todo at `items[2].title`: expected String,
/// found a number. Body starts: {"items":[...". The original `DecodingError` is kept in
/// ``underlying``.
public struct DecodingFailure: Error, CustomStringConvertible, @unchecked Sendable {
    /// The name of the type that was being decoded.
    public let typeName: String
    /// Where decoding stopped, as a path like `items[2].title`; empty at the top level.
    public let codingPath: String
    /// What was wrong there, in words.
    public let reason: String
    /// The first bytes of the body, as text, for the log.
    public let bodyPreview: String
    /// The error the decoder threw. (`DecodingError` holds `CodingKey`s and a context that are
    /// not `Sendable`; this value is immutable after creation, hence `@unchecked Sendable`.)
    public let underlying: DecodingError

    /// The line (from 1) of a line-by-line body (JSON Lines) that did not decode; `nil` for a
    /// whole body.
    public let lineNumber: Int?

    /// How many bytes of the body ``bodyPreview`` keeps.
    public static let previewLength = 256

    /// Describes `error`, thrown while decoding `body` as `type`; `lineNumber` when the body is
    /// one line of a line-by-line body.
    public init(type: Any.Type, error: DecodingError, body: Data, lineNumber: Int? = nil) {
        typeName = String(reflecting: type)
        self.lineNumber = lineNumber
        underlying = error
        bodyPreview = Self.preview(of: body, limit: Self.previewLength)
        let context: DecodingError.Context?
        switch error {
        case .typeMismatch(let expected, let errorContext):
            context = errorContext
            reason = "expected \(expected)" + Self.found(in: errorContext.debugDescription)
        case .valueNotFound(let expected, let errorContext):
            context = errorContext
            reason = "missing value of type \(expected)" + Self.found(in: errorContext.debugDescription)
        case .keyNotFound(let key, let errorContext):
            context = errorContext
            reason = "missing key \"\(key.stringValue)\""
        case .dataCorrupted(let errorContext):
            context = errorContext
            reason = "invalid data: \(Self.sentence(errorContext.debugDescription))"
        @unknown default:
            context = nil
            reason = Self.sentence(String(describing: error))
        }
        codingPath = context.map { Self.path($0.codingPath) } ?? ""
    }

    public var description: String {
        let location = codingPath.isEmpty ? "" : " at `\(codingPath)`"
        let body =
            bodyPreview.isEmpty ? "The body is empty." : "\(lineNumber == nil ? "Body" : "Line") starts: \(bodyPreview)"
        let line = lineNumber.map { " on line \($0)" } ?? ""
        return "Could not decode \(typeName)\(line)\(location): \(reason). \(body)"
    }

    /// What the decoder says it found instead, as ", found a number", from its message ("Expected
    /// to decode String but found a number instead."); empty when the message says nothing of it.
    static func found(in message: String) -> String {
        guard let range = message.firstRange(of: " but found ") else { return "" }
        var found = message[range.upperBound...]
        if found.hasSuffix(".") { found = found.dropLast() }
        if found.hasSuffix(" instead") { found = found.dropLast(" instead".count) }
        return found.isEmpty ? "" : ", found \(found)"
    }

    /// A decoder's message as a clause of ``description``: without its closing period (the
    /// description adds its own), and with a coding key written as its name (`"title"` for
    /// `CodingKeys(stringValue: "title", intValue: nil)`).
    static func sentence(_ message: String) -> String {
        var text = message
        while let start = text.firstRange(of: "CodingKeys(stringValue: "),
            let end = text[start.upperBound...].firstRange(of: ")")
        {
            let inside = text[start.upperBound..<end.lowerBound]
            let name = inside.split(separator: ",", maxSplits: 1).first.map(String.init) ?? String(inside)
            text.replaceSubrange(start.lowerBound..<end.upperBound, with: name)
        }
        while text.hasSuffix(".") || text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// `items[2].title` for the keys `items`, index 2, `title`.
    static func path(_ keys: [any CodingKey]) -> String {
        var path = ""
        for key in keys {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                if !path.isEmpty { path += "." }
                path += key.stringValue
            }
        }
        return path
    }

    /// The first `limit` bytes of `body` as text, with "…" when there is more (shared by every
    /// module of this package).
    package static func preview(of body: Data, limit: Int) -> String {
        let text = String(decoding: body.prefix(limit), as: UTF8.self)
        return body.count > limit ? text + "…" : text
    }
}

extension DecodingFailure: LocalizedError {
    /// The same text as ``description``, for code that shows `localizedDescription`.
    public var errorDescription: String? { description }
}
