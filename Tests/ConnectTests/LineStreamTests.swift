import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// JSON Lines: the splitting rules without a socket, then real streams.
@Suite("Line streams", .timeLimit(.minutes(3)))
struct LineStreamTests {
    static func split(_ text: String, piece: Int, limit: Int = 1 << 20) throws -> [String] {
        var splitter = LineSplitter(maximumLineLength: limit)
        let bytes = Array(text.utf8)
        var lines: [String] = []
        var offset = 0
        while offset < bytes.count {
            let end = bytes.count - offset <= piece ? bytes.count : offset + piece
            try splitter.feed(bytes[offset..<end]) { line, number in
                #expect(number == lines.count + 1)
                lines.append(String(decoding: line, as: UTF8.self))
            }
            offset = end
        }
        if let (last, _) = splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
        return lines
    }

    @Test(arguments: [
        ("a\nb\nc\n", ["a", "b", "c"]),
        ("a\r\nb\r\n", ["a", "b"]),
        ("a\nb", ["a", "b"]),  // a last line without a line end counts
        ("a\n\nb\n", ["a", "", "b"]),
        ("", []),
        ("\n", [""]),
        ("a\rb\n", ["a\rb"]),  // a lone CR is not a line end
        ("ünï\ncödé\n", ["ünï", "cödé"])
    ])
    func lines(text: String, expected: [String]) throws {
        for piece in [1, 2, Int.max] {
            #expect(try Self.split(text, piece: piece) == expected, "fed \(piece) bytes at a time")
        }
    }

    @Test func aLineOverTheLimitFails() {
        #expect(throws: LineSplitter.Failure.lineTooLong(line: 2, limit: 8)) {
            _ = try Self.split("short\nthis one is long\n", piece: 3, limit: 8)
        }
    }

    struct Progress: Decodable, Sendable, Equatable {
        let step: Int
        let label: String
    }

    @Test func decodedLinesArriveAsTheyCome() async throws {
        let body = (1...1000).map { #"{"step":\#($0),"label":"step \#($0)"}"# + "\n" }.joined()
        let server = try TestServer { _ in
            TestResponse(
                headers: [("Content-Type", "application/x-ndjson")], body: Data(body.utf8),
                behavior: .trickle(chunk: 4096, every: .milliseconds(1)))
        }
        defer { server.shutdown() }
        var steps: [Progress] = []
        let lines = sharedConnect.lines(
            TestConnector(server, "/progress"), bufferSize: 64 << 10, maximumLineLength: 256)
        let response = try await lines.response
        #expect(response.statusCode == 200 && response.header("Content-Type") == "application/x-ndjson")
        for try await progress in lines.decodedLines(of: Progress.self) {
            steps.append(progress)
        }
        #expect(steps.count == 1000)
        #expect(steps.first == Progress(step: 1, label: "step 1") && steps.last?.step == 1000)
    }

    @Test func aLineThatDoesNotDecodeNamesItsNumberAndStart() async throws {
        let server = try TestServer { _ in
            .text(#"{"step":1,"label":"a"}"# + "\n\n" + #"{"step":"two","label":"b"}"# + "\n")
        }
        defer { server.shutdown() }
        var decoded = 0
        do {
            for try await _ in sharedConnect.lines(TestConnector(server, "/progress")).decodedLines(of: Progress.self) {
                decoded += 1
            }
            Issue.record("expected a decoding failure")
        } catch ConnectError.decoding(let failure) {
            #expect(decoded == 1)
            #expect(failure.lineNumber == 3)  // the blank line counts, and is skipped
            #expect(failure.codingPath == "step")
            #expect(
                failure.description.contains(#"on line 3 at `step`"#)
                    && failure.description.contains(#"Line starts: {"step":"two""#))
        }
    }

    @Test func anErrorStatusFailsTheLines() async throws {
        let server = try TestServer { _ in .json(#"{"message":"No such job"}"#, status: 404) }
        defer { server.shutdown() }
        do {
            for try await _ in sharedConnect.lines(TestConnector(server, "/progress")) {}
            Issue.record("expected a failure")
        } catch ConnectError.http(let failure) {
            #expect(failure.statusCode == 404 && failure.message == "No such job")
        }
    }
}
