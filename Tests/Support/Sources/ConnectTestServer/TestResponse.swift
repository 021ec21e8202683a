import Foundation
import Synchronization

/// What the test server does with one request.
public struct TestResponse: Sendable {
    /// How the server misbehaves, if at all.
    public enum Behavior: Sendable {
        /// Answer normally.
        case respond
        /// Answer after waiting.
        case delay(Duration)
        /// Close the connection with a TCP reset instead of answering.
        case reset
        /// Never answer; keep the connection open.
        case stall
        /// Send the head (with the full `Content-Length`) and this many body bytes, then close.
        case truncate(after: Int)
        /// Send the head and this many body bytes, then never send the rest.
        case stallAfter(bytes: Int)
        /// Send the body slowly: `chunk` bytes every `interval`.
        case trickle(chunk: Int, every: Duration)
        /// Send the head at once and the body when the test opens `gate`: for what a client does
        /// between the two, without a timing to guess.
        case holdBody(until: TestGate)
        /// Send the head (with the full `Content-Length`) at once, and close the connection
        /// without the body when the test opens `gate`.
        case cutBody(when: TestGate)
    }

    /// The status code.
    public var status: Int
    /// The headers, in order; `Content-Length` is added unless they frame the body.
    public var headers: [(String, String)]
    /// The body.
    public var body: Data
    /// How the server misbehaves while sending it, if at all.
    public var behavior: Behavior

    /// A response with a status, headers, a body and a behaviour.
    public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data(), behavior: Behavior = .respond)
    {
        self.status = status
        self.headers = headers
        self.body = body
        self.behavior = behavior
    }

    /// A JSON body with `Content-Type: application/json`.
    public static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }

    /// A plain-text body, with `headers` after its `Content-Type`.
    public static func text(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8",
        headers: [(String, String)] = []
    ) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", contentType)] + headers, body: Data(text.utf8))
    }

    /// A redirect to `location`.
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }
}

/// A request as the test server received it.
public struct RecordedRequest: Sendable {
    /// The method, e.g. `GET`.
    public let method: String
    /// The request target as sent, e.g. `/users/1?x=2`.
    public let uri: String
    /// The headers, in order.
    public let headers: [(String, String)]
    /// The body, de-chunked.
    public let body: Data
    /// Which connection carried it; the same number means the connection was reused.
    public let connectionID: Int

    /// The path part of ``uri``, still percent-encoded.
    public var path: String { String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]) }

    /// The query part of ``uri``, still percent-encoded, or `nil`.
    public var query: String? {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count > 1 ? String(parts[1]) : nil
    }

    /// The first header named `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Opened once by a test, to let a held response body go (see ``TestResponse/Behavior/holdBody(until:)``).
public final class TestGate: Sendable {
    private let opened = Mutex(false)

    /// A closed gate.
    public init() {}

    /// Lets what waits for the gate go.
    public func open() { opened.withLock { $0 = true } }

    /// Whether the gate was opened.
    public var isOpen: Bool { opened.withLock { $0 } }
}
