import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A body read line by line as it arrives (JSON Lines, NDJSON, logs); see
/// ``Connect/lines(_:bufferSize:maximumLineLength:debugResponse:)``.
///
/// Iterate once. A consumer slower than the server pauses the transfer. Cancelling the
/// iterating task ends the transfer at once.
public struct LineStream: AsyncSequence, Sendable {
    public typealias Element = String

    let stream: ResponseStream
    let maximumLineLength: Int
    /// The client's `jsonDecoder`, for ``decodedLines(of:decoder:)``.
    let jsonDecoder: UncheckedDecoder

    /// The status and headers, once they are in, as ``ResponseStream/response`` is.
    public var response: Response {
        get async throws { try await stream.response }
    }

    /// The status and headers, once they are in.
    @available(*, deprecated, renamed: "response")
    public var head: Response {
        get async throws { try await stream.response }
    }

    /// Each line decoded from JSON as `type` as it arrives, blank lines skipped. A line that
    /// does not decode fails the sequence with ``ConnectError/decoding(_:)``, naming the line's
    /// number and its start.
    ///
    /// - Parameters:
    ///   - type: what each line decodes to.
    ///   - decoder: decodes the lines; the client's `jsonDecoder` when `nil`.
    public func decodedLines<Decoded: Decodable & Sendable>(
        of type: Decoded.Type, decoder: JSONDecoder? = nil
    ) -> DecodedLineStream<Decoded> {
        DecodedLineStream(lines: self, decoder: decoder.map(UncheckedDecoder.init) ?? jsonDecoder)
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            chunks: stream.makeAsyncIterator(), splitter: LineSplitter(maximumLineLength: maximumLineLength),
            stream: stream)
    }

    /// Hands out the lines in order.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseStream.Iterator
        var splitter: LineSplitter
        let stream: ResponseStream
        private var pending: [(line: [UInt8], number: Int)] = []
        private var next = 0
        private var ended = false

        init(chunks: ResponseStream.Iterator, splitter: LineSplitter, stream: ResponseStream) {
            self.chunks = chunks
            self.splitter = splitter
            self.stream = stream
        }

        public mutating func next() async throws -> String? {
            try await nextLine().map { String(decoding: $0.line, as: UTF8.self) }
        }

        /// The next line's bytes and number.
        mutating func nextLine() async throws -> (line: [UInt8], number: Int)? {
            while true {
                if next < pending.count {
                    defer { next += 1 }
                    return pending[next]
                }
                pending.removeAll(keepingCapacity: true)
                next = 0
                if ended { return nil }
                guard let chunk = try await chunks.next() else {
                    ended = true
                    if let last = splitter.finish() { pending.append(last) }
                    continue
                }
                do {
                    try splitter.feed(chunk) { pending.append(($0, $1)) }
                } catch {
                    stream.cancel()
                    throw ConnectError.transport(
                        TransportFailure(
                            kind: .malformedResponse, message: "Malformed line stream: \(error)", requestSent: true))
                }
            }
        }
    }
}
