import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response body read as it arrives, for large or endless responses.
///
/// ```swift
/// let events = connect.stream(FeedConnector.live)
/// let head = try await events.response            // status and headers
/// for try await chunk in events {                  // Data, in order
///     parser.feed(chunk)
/// }
/// ```
/// At most ``bufferSize`` bytes wait unread: when the buffer is full, libcurl stops reading the
/// socket until the consumer catches up, so a slow reader slows the server instead of filling
/// memory. An error status goes to the error handler as usual; then ``response`` and the
/// iteration throw its error. Iterate once. Cancel with ``cancel()`` or by cancelling the task
/// that iterates.
public struct ResponseStream: AsyncSequence, Sendable {
    public typealias Element = Data

    let buffer: StreamBuffer
    let exchange: Future<Response>

    /// The bytes that may wait unread before the transfer pauses.
    public var bufferSize: Int { buffer.limit }

    /// The status and headers, once they are in (the body is empty: it is the stream).
    public var response: Response {
        get async throws { try await buffer.head.future.value }
    }

    /// Stops the transfer; the iteration throws ``ConnectError/cancelled``.
    public func cancel() {
        exchange.cancel()
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer, exchange: exchange)
    }

    /// Hands out the chunks in order.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: StreamBuffer
        let exchange: Future<Response>

        public mutating func next() async throws -> Data? {
            let buffer = self.buffer
            let exchange = self.exchange
            return try await withTaskCancellationHandler {
                try await buffer.next()
            } onCancel: {
                exchange.cancel()
            }
        }
    }
}
