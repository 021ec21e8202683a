import ConnectFutures

/// Carries one request to a server and brings back its response: the layer below ``Connect``.
///
/// ``CurlTransport`` is the real one; a mock can stand in for it in tests. A transport fails
/// with ``ConnectError`` cases, and completes its futures off its own I/O thread.
public protocol Transport: Sendable {
    /// Sends `request` once. Cancelling the returned future stops the exchange.
    func send(_ request: Request) -> Future<Response>

    /// Stops every exchange in flight; each fails with ``ConnectError/cancelled``.
    func cancelAll()
}
