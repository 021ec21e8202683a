import ConnectFutures
import Dispatch
import Foundation

/// A ``MockTransport`` received a request it has no response for.
public struct NoMockResponse: Error, CustomStringConvertible, Sendable {
    /// The request.
    public let request: Request

    public var description: String {
        "MockTransport has no response for \(request.method) \(request.url.absoluteString); register one with register(_:for:) or register(_:when:)."
    }
}
