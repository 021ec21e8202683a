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
        case webSocket(subprotocol: String?, headers: [HTTPHeader], @Sendable (MockWebSocketPeer) async throws -> Void)
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

    /// Accepts a WebSocket's opening handshake (``Connect/webSocket(_:options:debugResponse:)-(Connector,_,_)``)
    /// with a 101, and runs `conversation` as the server's end of the connection: the test
    /// scripts what the server sends and reads what the app sends (see ``MockWebSocketPeer``).
    ///
    /// - Parameters:
    ///   - subprotocol: the subprotocol the server chooses; the handshake fails, as against a
    ///     server, unless the request offered it in `Sec-WebSocket-Protocol`.
    ///   - headers: more headers for the 101.
    ///   - conversation: the server's side; the connection closes (1000) when it returns, and
    ///     drops when it throws.
    ///
    /// A plain request that meets this answer fails: it answers WebSocket handshakes only.
    public static func webSocket(
        subprotocol: String? = nil, headers: [HTTPHeader] = [],
        _ conversation: @escaping @Sendable (MockWebSocketPeer) async throws -> Void
    ) -> MockResponse {
        MockResponse(outcome: .webSocket(subprotocol: subprotocol, headers: headers, conversation))
    }

    /// The same answer, arriving after `delay`.
    public func delayed(by delay: Duration) -> MockResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
