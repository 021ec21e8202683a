internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default error handler: finds the server's message in the body and returns
/// ``ConnectError/http(_:)`` carrying it, the status and the whole response.
///
/// It looks for these keys, in this order, at the top of a JSON object and inside nested
/// objects and arrays (`{"error": {"message": …}}`, `{"errors": [{"message": …}]}`):
/// ``defaultMessageKeys``. A message that stands beside a location names it, as validation
/// errors do (FastAPI and pydantic's `{"detail": [{"loc": ["body", "name"], "msg": "Field
/// required"}]}` reads "body.name: Field required"; `field`, `path`, `pointer`, `param` and
/// JSON:API's `source` are read the same way). An RFC 9457 problem (`application/problem+json`)
/// reads as its `title` and `detail` and then its `errors`. A plain-text body of modest size is
/// taken as the message itself.
/// It never fails on any body: with nothing found, the error still carries the status,
/// the reason phrase and a preview of the body.
public struct ErrorHandler: ErrorHandlerProtocol {
    /// `msg`, `messge` (sic, a misspelling some servers really send), `message`,
    /// `error_description`, `detail`, `error`, `err`, `title`, `errors`.
    public static let defaultMessageKeys = [
        "msg", "messge", "message", "error_description", "detail", "error", "err", "title", "errors"
    ]

    /// The keys looked up, most specific first.
    public var messageKeys: [String]

    /// Creates a handler that looks up `messageKeys`.
    public init(messageKeys: [String] = ErrorHandler.defaultMessageKeys) {
        self.messageKeys = messageKeys
    }

    /// The message found in `response`, wrapped in ``ServerMessage``; used when a handler is
    /// called with a dictionary alone.
    public func handle(response: [String: Any]) -> (any Error)? {
        ServerMessage(message: message(in: response) ?? "The server reported an error.")
    }

    public func handle(failure: FailedExchange) -> (any Error)? {
        ConnectError.http(HTTPFailure(message: message(in: failure), response: failure.response))
    }

    /// The server's message in a failed response, if one can be found.
    public func message(in failure: FailedExchange) -> String? {
        if let json = failure.json {
            if let problem = json as? [String: Any], Self.isProblem(failure.response),
                let text = message(inProblem: problem)
            {
                return text
            }
            return message(in: json)
        }
        return plainTextMessage(failure.response)
    }

    /// The message in a parsed JSON value, if one can be found; `json` holds values as
    /// ``FailedExchange/json`` gives them (a `String`, `Int` or `Double` can be the message; a
    /// `Bool` or ``JSONNull`` never is).
    public func message(in json: Any) -> String? {
        message(in: json, depth: 0)
    }

    /// ``message(in:)`` for a value `depth` levels inside the body: the search stops some
    /// levels down.
    func message(in json: Any, depth: Int) -> String? {
        guard depth < 8 else { return nil }
        switch json {
        case let object as [String: Any]:
            for key in messageKeys {
                guard let value = object[key], let text = message(in: value, depth: depth + 1) else { continue }
                // A message of this object's own, beside where it applies.
                if !(value is [String: Any] || value is [Any]), let location = Self.location(in: object) {
                    return "\(location): \(text)"
                }
                return text
            }
            return nil
        case let array as [Any]:
            let messages = array.prefix(10).compactMap { message(in: $0, depth: depth + 1) }
            return messages.isEmpty ? nil : messages.joined(separator: "; ")
        case let text as String:
            let trimmed = String(text.trimmingWhitespace)
            return trimmed.isEmpty ? nil : trimmed
        case is Bool:
            // `{"error": true}` says that, not what: a boolean is never the message.
            return nil
        case let number as Int:
            return String(number)
        case let number as Double:
            return String(number)
        default:
            // Null, or a value no JSON reader produces.
            return nil
        }
    }

    /// The keys that say where a message applies, most specific first: pydantic's `loc`, then
    /// the common `field`, `path` (GraphQL), `pointer` (RFC 9457's examples), `param` and
    /// JSON:API's `source` object.
    static let locationKeys = ["loc", "field", "path", "pointer", "parameter", "param", "source"]

    /// Where the message of `object` applies, as text: `["body", "items", 0]` reads
    /// "body.items.0", a JSON pointer "#/name" or "/data/name" reads "name" or "data/name".
    static func location(in object: [String: Any], depth: Int = 0) -> String? {
        for key in locationKeys {
            switch object[key] {
            case let parts as [Any]:
                let names = parts.compactMap { part -> String? in
                    switch part {
                    case let text as String: return text
                    case let number as Int: return String(number)
                    default: return nil
                    }
                }
                if !names.isEmpty { return names.joined(separator: ".") }
            case let text as String:
                var trimmed = Substring(text.trimmingWhitespace)
                while let first = trimmed.first, first == "#" || first == "/" { trimmed = trimmed.dropFirst() }
                if !trimmed.isEmpty { return String(trimmed) }
            case let source as [String: Any] where depth == 0:
                if let inner = location(in: source, depth: 1) { return inner }
            default:
                continue
            }
        }
        return nil
    }

    /// Whether the body is an RFC 9457 problem: `application/problem+json`.
    static func isProblem(_ response: Response) -> Bool {
        guard let type = response.header("Content-Type") else { return false }
        return type.lowercased().trimmingWhitespace.hasPrefix("application/problem+json")
    }

    /// An RFC 9457 problem's message: its `title` and `detail` ("title: detail", or two
    /// sentences when the title ends like one), then the
    /// messages of its `errors` in parentheses; `nil` when it has none of these, and the
    /// message keys decide.
    func message(inProblem problem: [String: Any]) -> String? {
        let title = (problem["title"] as? String).map { String($0.trimmingWhitespace) }.flatMap {
            $0.isEmpty ? nil : $0
        }
        let detail = (problem["detail"] as? String).map { String($0.trimmingWhitespace) }.flatMap {
            $0.isEmpty ? nil : $0
        }
        var text = title ?? ""
        if let detail, detail != title {
            // A title that is a sentence already is followed by the detail as the next one.
            let separator = text.isEmpty ? "" : (text.last.map { ".!?".contains($0) } == true ? " " : ": ")
            text += separator + detail
        }
        if let errors = problem["errors"], let listed = message(in: errors, depth: 1) {
            text = text.isEmpty ? listed : "\(text) (\(listed))"
        }
        return text.isEmpty ? nil : text
    }

    private func plainTextMessage(_ response: Response) -> String? {
        let contentType = response.header("Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("text/plain"), response.body.count <= 1024,
            let text = String(data: response.body, encoding: .utf8)
        else { return nil }
        let trimmed = String(text.trimmingWhitespace)
        return trimmed.isEmpty ? nil : trimmed
    }
}
