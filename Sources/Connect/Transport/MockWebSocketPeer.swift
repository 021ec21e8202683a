import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server's end of a WebSocket that a ``MockTransport`` opens for
/// ``MockResponse/webSocket(subprotocol:headers:_:)``: a test scripts the conversation with it,
/// and the app's ``WebSocket`` reads and sends as it would against a server.
///
/// ```swift
/// mock.register(.webSocket { peer in
///     for await message in peer.messages {       // what the app sends
///         try await peer.send(message)          // echoed back
///     }
/// }, for: ChatConnector.room("swift"))
/// ```
///
/// The conversation ends the connection when it returns (a close with 1000, if nothing closed
/// it before) or throws (dropped, as a connection that ends without a close frame: the app's
/// reader throws ``WebSocketError/dropped(_:)``).
public final class MockWebSocketPeer: Sendable {
    /// The opening handshake's request, as it reached the transport.
    public let request: Request
    /// The messages the app sends, in order. The sequence ends when the connection closes,
    /// however it does.
    public let messages: AsyncStream<WebSocketMessage>

    private struct State {
        var isOpen = true
        var appClose: (code: UInt16, reason: String)?
        /// A ``send(_:)`` waiting for the app's reader to take what the socket holds.
        var waitingSend: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())
    private let incoming: AsyncStream<WebSocketMessage>.Continuation
    /// What the app's reader takes messages from.
    let inbox: WebSocketInbox

    init(request: Request, receiveBufferSize: Int) {
        self.request = request
        (messages, incoming) = AsyncStream.makeStream(of: WebSocketMessage.self)
        inbox = WebSocketInbox(limit: receiveBufferSize)
    }

    /// The code the app closed the connection with (1001 when it let go of its `WebSocket`), once
    /// it did; `nil` while the connection is open or when this side closed it.
    public var closeCode: UInt16? { state.withLock { $0.appClose?.code } }

    /// The reason the app gave when it closed the connection.
    public var closeReason: String? { state.withLock { $0.appClose?.reason } }

    /// Whether the connection has ended, however it did.
    public var isClosed: Bool { state.withLock { !$0.isOpen } }

    /// Sends `message` to the app. Returns at once, unless the app's reader has more waiting
    /// than ``WebSocketOptions/receiveBufferSize`` holds: then once it has taken its fill, as a
    /// server's send waits on a reader that stopped reading the socket. Throws
    /// ``WebSocketError/closed`` once the connection has ended.
    public func send(_ message: WebSocketMessage) async throws {
        guard state.withLock({ $0.isOpen }) else { throw WebSocketError.closed }
        var batch = [message]
        guard inbox.deliver(&batch) else { return }
        await withCheckedContinuation { continuation in
            let waits = state.withLock { state -> Bool in
                guard state.isOpen else { return false }
                state.waitingSend = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// Sends a text message to the app.
    public func send(_ text: String) async throws {
        try await send(.text(text))
    }

    /// Sends a binary message to the app.
    public func send(_ data: Data) async throws {
        try await send(.binary(data))
    }

    /// Closes the connection with `code` and `reason`, as a server's close frame does: the app's
    /// reader ends after the messages sent before, and its ``WebSocket/closeCode`` is `code`.
    public func close(code: UInt16 = 1000, reason: String = "") {
        end(.closed(code: code, reason: reason), appClose: nil)
    }

    /// Ends the connection without a close frame: the app's reader throws
    /// ``WebSocketError/dropped(_:)`` with `reason` after the messages sent before.
    public func drop(_ reason: String = "the mock peer dropped the connection") {
        end(.failed(.dropped(reason)), appClose: nil)
    }

    /// Ends the connection once: the inbox learns how, and the peer's messages end.
    private func end(_ ending: WebSocketEnding, appClose: (code: UInt16, reason: String)?) {
        let waitingSend = state.withLock { state -> CheckedContinuation<Void, Never>?? in
            guard state.isOpen else { return nil }
            state.isOpen = false
            state.appClose = appClose
            defer { state.waitingSend = nil }
            return .some(state.waitingSend)
        }
        guard let waitingSend else { return }
        inbox.end(ending)
        incoming.finish()
        waitingSend?.resume()
    }

    /// Runs `conversation` against this peer, and ends the connection when it returns or throws.
    func start(_ conversation: @escaping @Sendable (MockWebSocketPeer) async throws -> Void) {
        Task {
            do {
                try await conversation(self)
                close()
            } catch {
                drop("the mock conversation threw \(error)")
            }
        }
    }
}

/// The app's side of a ``MockWebSocketPeer``'s connection.
extension MockWebSocketPeer: WebSocketConnection {
    func send(_ message: WebSocketMessage, _ continuation: CheckedContinuation<Void, any Error>) {
        guard state.withLock({ $0.isOpen }) else { return continuation.resume(throwing: WebSocketError.closed) }
        incoming.yield(message)
        continuation.resume()
    }

    func ping(_ continuation: CheckedContinuation<Void, any Error>) {
        guard state.withLock({ $0.isOpen }) else { return continuation.resume(throwing: WebSocketError.closed) }
        continuation.resume()  // the peer answers every ping at once
    }

    func close(code: UInt16, reason: String, _ continuation: CheckedContinuation<WebSocketEnding, any Error>) {
        guard state.withLock({ $0.isOpen }) else {
            return continuation.resume(returning: inbox.ending ?? .failed(.closed))
        }
        guard WebSocketClosePayload.mayBeSent(code) else {
            return continuation.resume(
                throwing: WebSocketError.invalidArgument(
                    "\(code) is not a status code a close frame may carry (1000-1003, 1007-1014, 3000-4999)"))
        }
        // The peer answers with the same code, as a server that agrees does.
        end(.closed(code: code, reason: reason), appClose: (code, reason))
        continuation.resume(returning: inbox.ending ?? .closed(code: code, reason: reason))
    }

    func resumeReading() {
        let waitingSend = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waitingSend = nil }
            return state.waitingSend
        }
        waitingSend?.resume()
    }

    func release() {
        end(.closed(code: 1001, reason: ""), appClose: (1001, ""))
    }
}
