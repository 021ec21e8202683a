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
/// ``defaultMessageKeys``. A plain-text body of modest size is taken as the message itself.
/// It never fails on any body: with nothing found, the error still carries the status,
/// the reason phrase and a preview of the body.
public struct ErrorHandler: ErrorHandlerProtocol {
    /// `msg`, `messge` (sic, a misspelling some servers really send), `message`,
    /// `error_description`, `detail`, `error`, `err`, `title`, `errors`.
    public static let defaultMessageKeys = ["msg", "messge", "message", "error_description", "detail", "error", "err", "title", "errors"]

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

    public func handle(failure: FailedResponse) -> (any Error)? {
        ConnectError.http(HTTPFailure(message: message(in: failure), response: failure.response))
    }

    /// The server's message in a failed response, if one can be found.
    public func message(in failure: FailedResponse) -> String? {
        if let json = failure.json {
            return message(in: json)
        }
        return plainTextMessage(failure.response)
    }

    /// The message in a parsed JSON value, if one can be found; `json` holds values as
    /// ``FailedResponse/json`` gives them (a `String`, `Int` or `Double` can be the message; a
    /// `Bool` or ``JSONNull`` never is).
    public func message(in json: Any, depth: Int = 0) -> String? {
        guard depth < 8 else { return nil }
        switch json {
        case let object as [String: Any]:
            for key in messageKeys {
                guard let value = object[key] else { continue }
                if let text = message(in: value, depth: depth + 1) { return text }
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

    private func plainTextMessage(_ response: Response) -> String? {
        let contentType = response.header("Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("text/plain"), response.body.count <= 1024,
            let text = String(data: response.body, encoding: .utf8)
        else { return nil }
        let trimmed = String(text.trimmingWhitespace)
        return trimmed.isEmpty ? nil : trimmed
    }
}
