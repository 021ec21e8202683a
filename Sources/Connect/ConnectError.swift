import ConnectFutures
import Foundation

/// Every way a request made through ``Connect`` can fail, with cases to switch on.
///
/// ```swift
/// switch error as? ConnectError {
/// case .http(let failure)?: show(failure.message ?? "Server error \(failure.statusCode)")
/// case .timedOut?, .transport?: offerRetry()
/// case .cancelled?: break
/// default: show("\(error)")
/// }
/// ```
/// Errors that your own ``ErrorHandlerProtocol`` returns reach observers unchanged instead.
public enum ConnectError: Error, Sendable, CustomStringConvertible {
    /// The request could not be built or is unsafe to send (a URL that does not parse, an
    /// unfilled `{key}`, a header with CR/LF, …). Nothing was sent.
    case invalidRequest(String)
    /// The exchange failed below HTTP: connection refused, reset, DNS failure, truncated body, ….
    /// `code` is libcurl's `CURLcode`; `requestSent` tells whether any byte of the request had
    /// been sent, which decides whether a non-idempotent request may be retried safely.
    case transport(code: Int, message: String, requestSent: Bool)
    /// The connect or total timeout elapsed.
    case timedOut(String)
    /// The request was cancelled.
    case cancelled
    /// TLS failed: the certificate was untrusted, expired or for another host, or a pin did not match.
    case tls(code: Int, message: String)
    /// The server answered with a status outside the accepted range.
    case http(HTTPFailure)
    /// The response body was larger than the configured maximum.
    case responseTooLarge(limit: Int)
    /// The body could not be decoded: `decoded(toType:)` on a future from `Connect` fails with
    /// this, carrying the type, the coding path and the start of the body.
    case decoding(DecodingFailure)

    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "Invalid request: \(reason)."
        case .transport(let code, let message, let requestSent):
            let when = requestSent ? "after the request was sent" : "before the request was sent"
            return "Transport failure \(when): \(message) (curl error \(code))."
        case .timedOut(let message):
            return "Timed out: \(message)."
        case .cancelled:
            return "The request was cancelled."
        case .tls(let code, let message):
            return "TLS failure: \(message) (curl error \(code))."
        case .http(let failure):
            return failure.description
        case .responseTooLarge(let limit):
            return "The response body is larger than the limit of \(limit) bytes."
        case .decoding(let failure):
            return failure.description
        }
    }

    /// The HTTP status, for ``http(_:)`` errors.
    public var statusCode: Int? {
        if case .http(let failure) = self { return failure.statusCode }
        return nil
    }
}

extension FutureContext {
    /// The context of every future a `Connect` returns.
    static func connect(callbackQueue: DispatchQueue) -> FutureContext {
        FutureContext(callbackQueue: callbackQueue, cancellationError: ConnectError.cancelled) { ConnectError.decoding($0) }
    }
}

/// A response whose status was outside the accepted range.
public struct HTTPFailure: Sendable, CustomStringConvertible {
    /// The status code.
    public var statusCode: Int { response.statusCode }
    /// What the server said, as the error handler found it in the body; `nil` if it found nothing.
    public let message: String?
    /// The whole response: headers and raw body.
    public let response: Response

    /// Creates a failure for `response`.
    public init(message: String?, response: Response) {
        self.message = message
        self.response = response
    }

    /// At most this many bytes of the body appear in ``description``.
    public static let previewLength = 512

    /// The start of the body as text, for logs and messages.
    public var bodyPreview: String {
        DecodingFailure.preview(of: response.body, limit: Self.previewLength)
    }

    public var description: String {
        var text = "HTTP \(statusCode) \(response.reasonPhrase)"
        if let message { text += ": \(message)" }
        if message == nil, !response.body.isEmpty { text += ". Body starts: \(bodyPreview)" }
        return text
    }
}

extension ConnectError: LocalizedError {
    /// The same text as ``description``, for code that shows `localizedDescription`.
    public var errorDescription: String? { description }
}
