/// What a ``WebSocket`` asks of its connection, as commands queued to the transfer loop, which
/// owns the socket; a send on an idle connection goes out from the sending task's own thread.
extension CurlWebSocket: WebSocketConnection {
    func send(_ message: WebSocketMessage, _ continuation: CheckedContinuation<Void, any Error>) {
        guard !sendOnCallersThread(message, continuation) else { return }
        transport.loop.enqueue(.webSocket(self, .send(message, continuation)))
    }

    func ping(_ continuation: CheckedContinuation<Void, any Error>) {
        transport.loop.enqueue(.webSocket(self, .ping(continuation)))
    }

    func close(code: UInt16, reason: String, _ continuation: CheckedContinuation<WebSocketEnding, any Error>) {
        transport.loop.enqueue(.webSocket(self, .close(code: code, reason: reason, continuation)))
    }

    func resumeReading() {
        transport.loop.enqueue(.webSocket(self, .resumeReading))
    }

    func release() {
        transport.loop.enqueue(.webSocket(self, .release))
    }
}
