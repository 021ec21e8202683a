import Testing

@testable import Connect
@testable import ConnectWire

/// A decoded body into a consumer that can be full, without a transfer: libcurl's inputs, the
/// consumer's answers piece by piece, and what libcurl is told; every decoded byte reaches the
/// consumer once, in order, however the pauses fall.
@Suite("Pausable decoding")
struct PausableDecodingTests {
    /// A chunked body of three chunks: one input decodes into three pieces.
    static let chunkedBody = Array("5\r\nhello\r\n1\r\n,\r\n6\r\n world\r\n0\r\n\r\n".utf8)

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        /// The inputs libcurl hands over, in order (a paused input is handed over again).
        let inputs: [[UInt8]]
        /// The consumer's answer to each piece offered, in order; `.all` once they run out.
        let answers: [PausableDecoding.Taken]
        /// What libcurl is told after each input.
        let outcomes: [PausableDecoding.Outcome]
        /// What the consumer took, in all.
        let taken: String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "every piece taken", inputs: [chunkedBody], answers: [],
            outcomes: [.consumed], taken: "hello, world"),
        Row(
            name: "full at the first piece: all three wait, then go first",
            inputs: [chunkedBody, chunkedBody], answers: [.full],
            outcomes: [.paused, .consumed], taken: "hello, world"),
        Row(
            name: "full at the second piece: the first is not offered again",
            inputs: [chunkedBody, chunkedBody], answers: [.all, .full],
            outcomes: [.paused, .consumed], taken: "hello, world"),
        Row(
            name: "still full on resuming: paused again, nothing lost",
            inputs: [chunkedBody, chunkedBody, chunkedBody], answers: [.all, .full, .full],
            outcomes: [.paused, .paused, .consumed], taken: "hello, world"),
        Row(
            name: "a refused piece stops the transfer",
            inputs: [chunkedBody], answers: [.all, .refused],
            outcomes: [.stopped], taken: "hello"),
        Row(
            name: "a refused backlog stops the transfer",
            inputs: [chunkedBody, chunkedBody], answers: [.full, .refused],
            outcomes: [.paused, .stopped], taken: ""),
        Row(
            name: "the body split over inputs, paused in the middle",
            inputs: [Array(chunkedBody[..<10]), Array(chunkedBody[..<10]), Array(chunkedBody[10...])],
            answers: [.full], outcomes: [.paused, .consumed, .consumed], taken: "hello, world"),
        Row(
            name: "resumed with more input than was paused on: only the rest is decoded",
            inputs: [Array(chunkedBody[..<10]), chunkedBody], answers: [.full],
            outcomes: [.paused, .consumed], taken: "hello, world")
    ]

    @Test(arguments: rows)
    func theConsumerTakesEveryDecodedByteOnce(_ row: Row) throws {
        let decoder = try BodyDecoder(chunked: true, codings: [])
        var decoding = PausableDecoding()
        var answers = row.answers[...]
        var taken: [UInt8] = []
        var outcomes: [PausableDecoding.Outcome] = []
        for input in row.inputs {
            let outcome = try input.withUnsafeBytes { bytes in
                try decoding.decode(bytes, with: decoder) { piece in
                    let answer = answers.popFirst() ?? .all
                    if answer == .all { taken.append(contentsOf: piece) }
                    return answer
                }
            }
            outcomes.append(outcome)
            if outcome == .stopped { break }
        }
        #expect(outcomes == row.outcomes)
        #expect(String(decoding: taken, as: UTF8.self) == row.taken)
        if outcomes.last == .consumed {
            #expect(decoding.backlog.isEmpty)
            #expect(decoding.inputAlreadyDecoded == 0)
        }
    }

    @Test func aPauseKeepsTheDecodedRestAndCountsTheInput() throws {
        let decoder = try BodyDecoder(chunked: true, codings: [])
        var decoding = PausableDecoding()
        let outcome = try Self.chunkedBody.withUnsafeBytes { bytes in
            try decoding.decode(bytes, with: decoder) { _ in .full }
        }
        #expect(outcome == .paused)
        #expect(String(decoding: decoding.backlog, as: UTF8.self) == "hello, world")
        #expect(decoding.inputAlreadyDecoded == Self.chunkedBody.count)
    }

    @Test func aMalformedBodyThrowsTheDecodersFailure() throws {
        let decoder = try BodyDecoder(chunked: true, codings: [])
        var decoding = PausableDecoding()
        #expect(throws: BodyDecoder.Failure.self) {
            try Array("zz\r\nhello\r\n".utf8).withUnsafeBytes { bytes in
                try decoding.decode(bytes, with: decoder) { _ in .all }
            }
        }
    }
}
