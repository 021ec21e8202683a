#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An open WebSocket connection (RFC 6455), from ``Connect/webSocket(_:options:debugResponse:)-(Connector,_,_)``.
///
/// ```swift
/// let socket = try await connect.webSocket(ChatConnector.room("swift"))
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     if case .text(let text) = message { print(text) }
/// }
/// ```
///
/// Sends from any number of tasks go out one whole frame after another, in the order they were
/// made; each returns once its bytes are handed to the socket. Messages arrive in order through
/// ``messages``, for one reader: when it is slower than the server, Connect holds up to
/// ``WebSocketOptions/receiveBufferSize`` bytes and then stops reading the socket until it
/// catches up. Pings from the server are answered, and text is checked to be UTF-8 as it
/// arrives.
///
/// The connection closes with ``close(code:reason:)``, when the server closes it, when a
/// reading task is cancelled, or when the last reference to the `WebSocket` goes (with 1001,
/// going away). No thread of its own: Connect's transfer thread drives every socket.
public final class WebSocket: Sendable {
    /// The server's answer to the opening handshake: 101, its headers and timings.
    public let response: Response
    /// The subprotocol the server chose from those the request offered in
    /// `Sec-WebSocket-Protocol`, if any.
    public let subprotocol: String?
    /// The compression the server accepted (``WebSocketOptions/compression`` offers it), with its
    /// parameters; `nil` when messages go uncompressed.
    public let compression: WebSocketCompression?
    /// The transport's connection (see ``WebSocketConnection``).
    let connection: any WebSocketConnection
    /// The connection's inbox, held here: every message is taken from it.
    let inbox: WebSocketInbox

    init(
        response: Response, subprotocol: String?, compression: WebSocketCompression? = nil,
        connection: any WebSocketConnection
    ) {
        self.response = response
        self.subprotocol = subprotocol
        self.compression = compression
        self.connection = connection
        inbox = connection.inbox
    }

    deinit {
        connection.release()
    }

    /// The messages the server sends, in order. The sequence ends after a closing handshake
    /// (the server's or this side's) and throws ``WebSocketError`` when the connection ended any
    /// other way; cancelling the task that reads it closes the connection, and the reader throws
    /// ``ConnectError/cancelled``, as every cancelled request of Connect's does.
    public var messages: Messages { Messages(socket: self) }

    /// Sends `message`, cut into frames of at most ``WebSocketOptions/maximumFrameSize`` bytes,
    /// and returns once the last is handed to the socket. Throws ``WebSocketError/closed`` once
    /// the connection is closing or closed.
    public func send(_ message: WebSocketMessage) async throws {
        let connection = connection
        try await withCheckedThrowingContinuation { connection.send(message, $0) }
    }

    /// Sends a text message.
    public func send(_ text: String) async throws {
        try await send(.text(text))
    }

    /// Sends a binary message.
    public func send(_ data: Data) async throws {
        try await send(.binary(data))
    }

    /// Sends a ping and returns when its pong arrives.
    public func ping() async throws {
        let connection = connection
        try await withCheckedThrowingContinuation { connection.ping($0) }
    }

    /// Runs the closing handshake: sends a close frame with `code` and `reason`, and returns once
    /// the connection is closed, saying how: ``WebSocketEnding/closed(code:reason:)`` with the
    /// server's answer, or ``WebSocketEnding/failed(_:)`` when it ended otherwise (the server did
    /// not answer within ``WebSocketOptions/closeTimeout``: ``WebSocketError/dropped(_:)``).
    /// Calling it again, or after the connection ended, returns how it ended at once. Whatever
    /// the ending, the connection is closed when it returns; it throws only for an invalid
    /// `code`.
    ///
    /// - Parameters:
    ///   - code: 1000 (normal), 1001 (going away), or one of 1002-1003, 1007-1014, 3000-4999;
    ///     any other throws ``WebSocketError/invalidArgument(_:)``.
    ///   - reason: a few words; a close frame carries at most 123 bytes of it.
    @discardableResult
    public func close(code: UInt16 = 1000, reason: String = "") async throws -> WebSocketEnding {
        let connection = connection
        return try await withCheckedThrowingContinuation { connection.close(code: code, reason: reason, $0) }
    }

    /// How the connection ended, once it has; `nil` while it is open.
    public var ending: WebSocketEnding? { inbox.ending }

    /// The close code the server sent in its close frame, once the connection closed; `nil`
    /// while it is open, when the server's close frame had none, or when it ended without one.
    public var closeCode: UInt16? {
        if case .closed(let code, _)? = inbox.ending { return code }
        return nil
    }

    /// The reason the server gave in its close frame, once the connection closed by the closing
    /// handshake.
    public var closeReason: String? {
        if case .closed(_, let reason)? = inbox.ending { return reason }
        return nil
    }

    /// Whether the connection has ended, however it did.
    public var isClosed: Bool { inbox.ending != nil }

    /// The next message for ``messages``; cancelling the reading task closes the connection.
    func nextMessage() async throws -> WebSocketMessage? {
        let connection = connection
        let inbox = inbox
        // A local function, not a closure value: passed down without a context to allocate.
        func resumeReading() { connection.resumeReading() }
        // A message already held needs no cancellation handler: the task does not wait. A
        // cancelled task takes the other path, whose handler closes the connection.
        if !Task.isCancelled, let message = inbox.takeIfHeld(resuming: resumeReading) {
            return message
        }
        return try await withTaskCancellationHandler {
            try await inbox.take(resuming: resumeReading)
        } onCancel: {
            inbox.abandonWaitingReader(with: ConnectError.cancelled)
            connection.release()
        }
    }

    /// The messages of a ``WebSocket``, for `for try await`. Holds the socket: it stays open
    /// while a loop reads it.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(socket: socket)
        }

        /// Reads the next message.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message; `nil` after a closing handshake.
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.nextMessage()
            }
        }
    }
}
