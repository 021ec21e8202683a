import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
