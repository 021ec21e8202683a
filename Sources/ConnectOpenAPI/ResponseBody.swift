#if OpenAPI
import Connect
import Foundation

/// A response body as the generated client reads it: the chunks of a ``Connect/ResponseStream``.
///
/// Letting go of the body before its end cancels the transfer, so that an operation whose body
/// is never read does not hold a paused connection until its timeout.
struct ResponseBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let stream: ResponseStream
    private let canceller: Canceller

    init(stream: ResponseStream) {
        self.stream = stream
        canceller = Canceller(stream: stream)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: stream.makeAsyncIterator(), canceller: canceller)
    }

    /// Hands out the stream's chunks as byte slices.
    struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseStream.Iterator
        let canceller: Canceller

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await chunks.next() else { return nil }
            return ArraySlice(chunk)
        }
    }

    /// Cancels the stream when the last reference to the body goes; a finished stream is not
    /// affected.
    final class Canceller: Sendable {
        let stream: ResponseStream

        init(stream: ResponseStream) {
            self.stream = stream
        }

        deinit { stream.cancel() }
    }
}
#endif
