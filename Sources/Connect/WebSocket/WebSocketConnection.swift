/// The connection under a ``WebSocket``: what the socket asks of a transport. Connect's own
/// transport serves it with a socket libcurl connected; ``MockTransport``
/// with a scripted peer (``MockResponse/webSocket(subprotocol:headers:_:)``). Messages from the server
/// reach the application through ``inbox``.
///
/// Each call that takes a continuation resumes it once: when the frames are handed to the
/// socket (a send), when the pong came (a ping), when the closing handshake is over (a close),
/// or with ``WebSocketError`` when it cannot be done.
protocol WebSocketConnection: AnyObject, Sendable {
    /// Where the messages the server sends wait for the application's reader.
    var inbox: WebSocketInbox { get }

    /// Sends `message`.
    func send(_ message: WebSocketMessage, _ continuation: CheckedContinuation<Void, any Error>)

    /// Sends a ping; `continuation` resumes when its pong arrives.
    func ping(_ continuation: CheckedContinuation<Void, any Error>)

    /// Runs the closing handshake with `code` and `reason`, and answers how the connection ended
    /// (at once when it already had); a code a close frame may not carry fails with
    /// ``WebSocketError/invalidArgument(_:)``.
    func close(code: UInt16, reason: String, _ continuation: CheckedContinuation<WebSocketEnding, any Error>)

    /// The reader took enough of what ``inbox`` held: read again.
    func resumeReading()

    /// The application let go of the socket, or its reader was cancelled: close with 1001
    /// (going away) if the connection is still open.
    func release()
}
