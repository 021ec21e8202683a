#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An exchange whose response status was not accepted: the request and the response it got.
public struct FailedExchange: Sendable {
    /// The request as it was sent.
    public let request: Request
    /// The response: status, headers, raw body.
    public let response: Response

    /// Creates a failed exchange.
    public init(request: Request, response: Response) {
        self.request = request
        self.response = response
    }

    /// The status code.
    public var statusCode: Int { response.statusCode }

    /// The body parsed as a JSON object, or `nil` if it is not one.
    ///
    /// Values are plain Swift values: `[String: Any]`, `[Any]`, `String`, `Bool`, ``JSONNull``,
    /// and `Int` for a number written without a fraction or exponent that fits one, `Double`
    /// for any other number.
    public var jsonObject: [String: Any]? {
        json as? [String: Any]
    }

    /// The body parsed as any JSON value (object, array, string, …), or `nil` if it is not
    /// exactly one valid JSON value; the values are those ``jsonObject`` describes.
    public var json: Any? {
        guard !response.body.isEmpty else { return nil }
        return JSONReader.value(from: response.body)
    }
}

/// The former name of ``FailedExchange``: it holds the request as well as the response.
@available(*, deprecated, renamed: "FailedExchange")
public typealias FailedResponse = FailedExchange
