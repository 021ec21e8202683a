import Foundation
import Testing
import SharedTestSupport

@testable import ConnectWire

/// Chunked framing (RFC 9112 §7.1) without a socket, fed whole and one byte at a time.
@Suite("Chunked decoder")
struct ChunkedDecoderTests {
    enum Outcome: Equatable, CustomStringConvertible {
        /// The body and the trailer section; whole or not.
        case body(String, trailers: String = "", complete: Bool = true)
        case problem(ChunkedDecoder.Problem)
        var description: String {
            switch self {
            case .body(let body, let trailers, let complete):
                return "\(body.debugDescription) trailers \(trailers.debugDescription)\(complete ? "" : ", cut off")"
            case .problem(let problem): return "\(problem)"
            }
        }
    }

    static func decode(_ wire: String, byteByByte: Bool) -> Outcome {
        var decoder = ChunkedDecoder()
        var body = Data()
        let bytes = Array(wire.utf8)
        let pieces: [[UInt8]] = byteByByte ? bytes.map { [$0] } : [bytes]
        for piece in pieces {
            if let problem = feed(&decoder, piece, into: &body) { return .problem(problem) }
        }
        return .body(
            String(decoding: body, as: UTF8.self), trailers: String(decoding: decoder.trailers, as: UTF8.self),
            complete: decoder.isComplete)
    }

    /// Decodes `piece` into `body`; the problem, if any.
    static func feed(
        _ decoder: inout ChunkedDecoder, _ piece: [UInt8], into body: inout Data, accepting: Bool = true
    ) -> ChunkedDecoder.Problem? {
        withCopiedBytes(piece) { input -> ChunkedDecoder.Problem? in
            do throws(ChunkedDecoder.Problem) {
                _ = try decoder.decode(input) { chunk in
                    body.append(contentsOf: chunk)
                    return accepting
                }
                return nil
            } catch {
                return error
            }
        }
    }

    /// Decodes `piece` with a body decoder into `body`; the failure, if any.
    static func feed(_ decoder: BodyDecoder, _ piece: Data, into body: inout Data) -> BodyDecoder.Failure? {
        withCopiedBytes(piece) { input -> BodyDecoder.Failure? in
            do throws(BodyDecoder.Failure) {
                _ = try decoder.decode(input) { chunk in
                    body.append(contentsOf: chunk)
                    return true
                }
                return nil
            } catch {
                return error
            }
        }
    }

    @Test(arguments: [
        ("5\r\nhello\r\n0\r\n\r\n", Outcome.body("hello")),
        ("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", .body("hello world")),
        ("A\r\n0123456789\r\n0\r\n\r\n", .body("0123456789")),
        ("a\r\n0123456789\r\n00\r\n\r\n", .body("0123456789")),
        ("0\r\n\r\n", .body("")),
        ("5;ext=1;other\r\nhello\r\n0;last\r\n\r\n", .body("hello")),
        ("5 ;ext\r\nhello\r\n0\r\n\r\n", .body("hello")),
        (
            "5\r\nhello\r\n0\r\nX-Checksum: 1\r\nX-Other:two\r\n\r\n",
            .body("hello", trailers: "X-Checksum: 1\r\nX-Other:two\r\n")
        ),
        ("5\r\nhello\r\n0\r\nX-Checksum: 1\n\r\n", .body("hello", trailers: "X-Checksum: 1\r\n")),
        // Cut off: not complete, no problem yet.
        ("5\r\nhel", .body("hel", complete: false)),
        ("5\r\nhello\r\n", .body("hello", complete: false)),
        ("5\r\nhello\r\n0\r\n", .body("hello", complete: false)),
        // Bytes after the end are not body.
        ("0\r\n\r\nHTTP/1.1 200 OK", .body("")),
        // Refused.
        ("0x5\r\nhello\r\n0\r\n\r\n", .problem(.malformedChunkSize)),
        ("+5\r\nhello\r\n0\r\n\r\n", .problem(.malformedChunkSize)),
        ("-1\r\n", .problem(.malformedChunkSize)),
        ("\r\nhello", .problem(.malformedChunkSize)),
        (" 5\r\nhello\r\n0\r\n\r\n", .problem(.malformedChunkSize)),
        ("5 x\r\nhello\r\n", .problem(.malformedChunkSize)),
        ("zz\r\nhello\r\n0\r\n\r\n", .problem(.malformedChunkSize)),
        ("1000000000000000\r\n", .problem(.chunkSizeTooLarge)),
        ("6\r\nhello\r\n0\r\n\r\n", .problem(.missingLineEnd)),
        ("4\r\nhello\r\n0\r\n\r\n", .problem(.missingLineEnd)),
        ("5\nhello\r\n0\r\n\r\n", .problem(.malformedChunkSize)),
        ("5\r\rhello", .problem(.missingLineEnd)),
        ("5;a\u{1}b\r\nhello", .problem(.malformedChunkExtension)),
        ("5\r\nhello\r\n0\r\nno colon\r\n\r\n", .problem(.malformedTrailer)),
        ("5\r\nhello\r\n0\r\n: empty name\r\n\r\n", .problem(.malformedTrailer)),
        ("5\r\nhello\r\n0\r\nX-A: 1\r\n folded\r\n\r\n", .problem(.malformedTrailer)),
        ("5\r\nhello\r\n0\r\nX A: 1\r\n\r\n", .problem(.malformedTrailer)),
        ("5\r\nhello\r\n0\r\nX-A: 1\rX\r\n\r\n", .problem(.malformedTrailer)),
        ("5\r\nhello\r\n0\r\n\rX", .problem(.missingLineEnd))
    ])
    func decodes(_ wire: String, _ expected: Outcome) {
        #expect(Self.decode(wire, byteByByte: false) == expected)
        #expect(Self.decode(wire, byteByByte: true) == expected)
    }

    @Test func aTrailerSectionOverItsLimitIsRefused() {
        let wire = "0\r\nX-Big: " + String(repeating: "b", count: ChunkedDecoder.maximumTrailerSection) + "\r\n\r\n"
        #expect(Self.decode(wire, byteByByte: false) == .problem(.trailerSectionTooLarge))
    }

    @Test func aStoppedDeliveryStopsTheDecoder() {
        var decoder = ChunkedDecoder()
        var body = Data()
        #expect(Self.feed(&decoder, Array("5\r\nhello\r\n".utf8), into: &body, accepting: false) == nil)
        #expect(body == Data("hello".utf8))
        #expect(!decoder.isComplete)
    }

    @Test func bodyDecoderReportsAChunkedProblemAndAContentFailure() throws {
        var body = Data()
        #expect(
            Self.feed(try BodyDecoder(chunked: true, codings: []), Data("0x5\r\n".utf8), into: &body)
                == .chunked(.malformedChunkSize))
        guard
            case .content? = Self.feed(
                try BodyDecoder(chunked: true, codings: [.gzip]), Data("5\r\nnotgz\r\n".utf8), into: &body)
        else {
            Issue.record("a body that is not gzip is refused")
            return
        }
    }
}
