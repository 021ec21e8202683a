import ConnectFutures
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A canned answer of a ``MockTransport``.
public struct MockResponse: Sendable {
    enum Outcome: Sendable {
        case response(status: Int, headers: [HTTPHeader], body: Data)
        case failure(any Error)
    }

    let outcome: Outcome
    /// How long it takes to arrive; `nil` follows the transport's ``MockTransport/Behavior``.
    public var delay: Duration?

    /// A response with a status, headers and a body.
    public static func status(_ code: Int, headers: [HTTPHeader] = [], body: Data = Data()) -> MockResponse {
        MockResponse(outcome: .response(status: code, headers: headers, body: body))
    }

    /// A JSON body, with `Content-Type: application/json`.
    public static func json(_ text: String, status: Int = 200) -> MockResponse {
        .status(status, headers: [.contentType("application/json")], body: Data(text.utf8))
    }

    /// An `Encodable` as a JSON body.
    public static func json<Value: Encodable>(
        encoding value: Value, status: Int = 200, encoder: JSONEncoder = JSONEncoder()
    ) throws -> MockResponse {
        .status(status, headers: [.contentType("application/json")], body: try encoder.encode(value))
    }

    /// A failure instead of a response, e.g. `ConnectError.timedOut("…")`.
    public static func failure(_ error: any Error) -> MockResponse {
        MockResponse(outcome: .failure(error))
    }

    /// The same answer, arriving after `delay`.
    public func delayed(by delay: Duration) -> MockResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
