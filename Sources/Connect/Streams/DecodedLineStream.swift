import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Each line of a body decoded from JSON as it arrives; see ``LineStream/decodedLines(of:decoder:)``.
public struct DecodedLineStream<Decoded: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = Decoded

    let lines: LineStream
    let decoder: UncheckedDecoder

    public func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), decoder: decoder, stream: lines.stream)
    }

    /// Decodes the lines in order, skipping blank ones.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: LineStream.Iterator
        let decoder: UncheckedDecoder
        let stream: ResponseStream

        public mutating func next() async throws -> Decoded? {
            while let (line, number) = try await lines.nextLine() {
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
                let data = Data(line)
                do {
                    return try decoder.decoder.decode(Decoded.self, from: data)
                } catch let error as DecodingError {
                    stream.cancel()
                    throw ConnectError.decoding(
                        DecodingFailure(type: Decoded.self, error: error, body: data, lineNumber: number))
                }
            }
            return nil
        }
    }
}
