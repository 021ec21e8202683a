import Foundation

/// A response whose status was not accepted, with the request that produced it.
public struct FailedResponse: Sendable {
    /// The request as it was sent.
    public let request: Request
    /// The response: status, headers, raw body.
    public let response: Response

    /// Creates a failed response.
    public init(request: Request, response: Response) {
        self.request = request
        self.response = response
    }

    /// The status code.
    public var statusCode: Int { response.statusCode }

    /// The body parsed as a JSON object, or `nil` if it is not one.
    public var jsonObject: [String: Any]? {
        guard !response.body.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])) as? [String: Any]
    }

    /// The body parsed as any JSON value (object, array, string, …), or `nil` if it is not JSON.
    public var json: Any? {
        guard !response.body.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])
    }
}
