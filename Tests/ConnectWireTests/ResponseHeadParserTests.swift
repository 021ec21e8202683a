import Testing

@testable import ConnectWire

/// The response-head decisions, line by line, without a socket.
@Suite("Response head parsing")
struct ResponseHeadParserTests {
    /// Reads `lines` (CRLF added) and gives the parser, or the problem it stopped at.
    static func read(_ lines: [String]) -> Result<ResponseHeadParser, ResponseHeadParser.Problem> {
        var parser = ResponseHeadParser()
        for line in lines {
            do {
                _ = try readLine(&parser, line + "\r\n")
            } catch {
                return .failure(error)
            }
        }
        return .success(parser)
    }

    /// One line, as the transport hands it over: bytes in a buffer of their own.
    static func readLine(
        _ parser: inout ResponseHeadParser, _ text: String
    ) throws(ResponseHeadParser.Problem) -> ResponseHeadParser.Line {
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        return try parser.read(UnsafeRawBufferPointer(buffer))
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK", 200),
        ("HTTP/1.0 404 Not Found", 404),
        ("HTTP/1.1 204", 204),
        ("HTTP/2 200 ", 200),
        ("HTTP/2.0 301 Moved", 301),
        ("HTTP/3 503", 503),
        ("HTTP/1.1 599 Custom", 599),
        // Invalid, and read as a server error (RFC 9110 §15).
        ("HTTP/1.1 600 High", 600),
        ("HTTP/1.1 999 Weird", 999),
        ("HTTP/1.1 100 Continue", 100),
        ("HTTP/3.0 200 OK", 200),
        ("HTTP/1.0 100", 100)
    ])
    func statusLinesThatAreRead(line: String, code: Int) throws {
        let parser = try Self.read([line]).get()
        #expect(parser.statusCode == code)
        #expect(!parser.isComplete)
    }

    @Test(arguments: [
        "HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 abc OK", "HTTP/1.1200 OK", "HTTP/9 200 OK",
        "HTTP/1.2 200 OK", "HTTP/1 200 OK", "HTTP/1.1  200 OK", "HTTP/1.1 099 Low", "HTTP/1.1 1000 Four",
        "HTTP/2.1 200",
        "HTTP/", "HTTP/1.1", "HTTP/1.1 2x0 OK", "HTTP/1.1 200OK", "HTTP/3.1 200", "HTTP/1.1 20", "HTTP/2", "HTTP/1.",
        "HTTP/1.1 "
    ])
    func statusLinesThatAreRefused(line: String) {
        #expect(throws: ResponseHeadParser.Problem.malformedStatusLine) { try Self.read([line]).get() }
    }

    @Test func aHeaderLineBeforeAnyStatusLineIsRefused() {
        #expect(throws: ResponseHeadParser.Problem.malformedStatusLine) { try Self.read(["Content-Length: 3"]).get() }
    }

    @Test func theHeadIsCompleteAtTheBlankLineAfterAFinalStatus() throws {
        #expect(try Self.read(["HTTP/1.1 200 OK", "Content-Type: text/plain"]).get().isComplete == false)
        #expect(try Self.read(["HTTP/1.1 200 OK", "Content-Type: text/plain", ""]).get().isComplete == true)
        // An interim response's blank line does not end the head; the final one's does.
        let interim = try Self.read(["HTTP/1.1 100 Continue", ""]).get()
        #expect(!interim.isComplete)
        let final = try Self.read(["HTTP/1.1 100 Continue", "", "HTTP/1.1 201 Created", "Content-Length: 0", ""]).get()
        #expect(final.isComplete && final.statusCode == 201 && final.contentLength == 0)
        // A proxy's answer to CONNECT, then the server's head.
        let tunnelled = try Self.read([
            "HTTP/1.1 200 Connection established", "", "HTTP/1.1 404 Not Found", "Content-Length: 9"
        ]).get()
        #expect(!tunnelled.isComplete && tunnelled.statusCode == 404 && tunnelled.contentLength == 9)
    }

    @Test(arguments: [
        (["Content-Length: 3"], 3),
        (["Content-Length: 3", "Content-Length: 3"], 3),
        (["Content-Length: 3, 3"], 3),
        (["content-length:   42  "], 42),
        (["CONTENT-LENGTH: 0"], 0),
        (["Content-Length: 999999999999999999"], 999_999_999_999_999_999),
        (["Content-Length:\t7\t"], 7),
        (["Content-Length: 5 , 5"], 5),
        (["Content-Length: 007"], 7)
    ])
    func contentLengthsThatAreRead(lines: [String], length: Int) throws {
        #expect(try Self.read(["HTTP/1.1 200 OK"] + lines).get().contentLength == length)
    }

    @Test(arguments: [
        (["Content-Length: 2", "Content-Length: 3"], ResponseHeadParser.Problem.conflictingContentLengths),
        (["Content-Length: 2, 3"], .conflictingContentLengths),
        (["Content-Length: 1000000000000000000"], .unreadableContentLength),
        (["Content-Length: -1"], .unreadableContentLength),
        (["Content-Length: 0x10"], .unreadableContentLength),
        (["Content-Length: 1 2"], .unreadableContentLength),
        (["Content-Length: "], .unreadableContentLength),
        (["Content-Length: 3,"], .unreadableContentLength),
        (["Content-Length: ,3"], .unreadableContentLength),
        (["Content-Length: 3,,3"], .unreadableContentLength),
        (["Content-Length: 1234567890123456789"], .unreadableContentLength),
        (["Content-Length: 3, 4, 3"], .conflictingContentLengths)
    ])
    func contentLengthsThatAreRefused(lines: [String], problem: ResponseHeadParser.Problem) {
        #expect(throws: problem) { try Self.read(["HTTP/1.1 200 OK"] + lines).get() }
    }

    @Test func eachHeadHasItsOwnContentLength() throws {
        // A redirect's or interim head's length says nothing about the next head's.
        let parser = try Self.read([
            "HTTP/1.1 100 Continue", "Content-Length: 5", "", "HTTP/1.1 200 OK", "Content-Length: 7"
        ]).get()
        #expect(parser.contentLength == 7)
    }

    @Test func lineKinds() throws {
        var parser = ResponseHeadParser()
        func kind(_ text: String) throws -> ResponseHeadParser.Line { try Self.readLine(&parser, text) }
        #expect(try kind("HTTP/1.1 200 OK\r\n") == .status)
        #expect(try kind("Content-Encoding: gzip\r\n") == .field)
        #expect(try kind("X-Folded: a\r\n") == .field)
        #expect(try kind("  b\r\n") == .continuation)
        #expect(try kind("\tc\n") == .continuation)
        #expect(try kind("Content-Length: 2\r\n") == .contentLength)
        #expect(try kind("Content-Type: text/plain\r\n") == .field)
        #expect(try kind("\r\n") == .end)
        // Trailers after the body are fields, not a new Content-Length.
        #expect(try kind("Content-Length: 9\r\n") == .field)
    }

    @Test func aFoldedLineBeforeAnyFieldOrALineWithoutAColonIsRefused() {
        #expect(throws: ResponseHeadParser.Problem.continuationBeforeAnyField) {
            try Self.read(["HTTP/1.1 200 OK", " folded"]).get()
        }
        #expect(throws: ResponseHeadParser.Problem.fieldWithoutColon) {
            try Self.read(["HTTP/1.1 200 OK", "no colon here"]).get()
        }
    }

    @Test(
        arguments: [
            // How the body is framed and coded: chunked or not, content codings in order.
            (["Transfer-Encoding: chunked"], true, [], false),
            (["Transfer-Encoding: Chunked "], true, [], false),
            (["Content-Encoding: gzip"], false, [.gzip], false),
            (["Content-Encoding: gzip, br"], false, [.gzip, .brotli], false),
            (["Content-Encoding: gzip", "X-Between: 1", "Content-Encoding: br"], false, [.gzip, .brotli], false),
            (["Content-Encoding: , identity ,deflate,"], false, [.deflate], false),
            (["Content-Encoding: x-custom, gzip", "Transfer-Encoding: chunked"], true, [.gzip], true),
            (["Content-Encoding: zstd", "Content-Length: 5"], false, [.zstd], false)
        ] as [([String], Bool, [ContentDecoder.Coding], Bool)])
    func bodyFramingAndCodings(lines: [String], chunked: Bool, codings: [ContentDecoder.Coding], unknown: Bool) throws {
        let parser = try Self.read(["HTTP/1.1 200 OK"] + lines + [""]).get()
        #expect(parser.isChunked == chunked)
        #expect(parser.contentCodings == codings)
        #expect(parser.hasUnknownContentCoding == unknown)
    }

    @Test(
        arguments: [
            // Connect asks for no transfer coding but chunked, which comes once and last.
            (["Transfer-Encoding: gzip, chunked"], .unsupportedTransferCoding),
            (["Transfer-Encoding: x-custom"], .unsupportedTransferCoding),
            (["Transfer-Encoding: chunked, gzip"], .unsupportedTransferCoding),
            (["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], .unsupportedTransferCoding),
            (["Transfer-Encoding: chunked, chunked"], .unsupportedTransferCoding),
            (["Transfer-Encoding: identity"], .unsupportedTransferCoding),
            // A framing field continued on the next line means two things.
            (["Content-Length: 1", " 0"], .foldedFramingField),
            (["Transfer-Encoding: chunked", "\tgzip"], .foldedFramingField),
            (["Content-Encoding: gzip", " br"], .foldedFramingField),
            (["Content-Encoding: gzip, gzip, gzip, gzip, gzip"], .tooManyContentCodings)
        ] as [([String], ResponseHeadParser.Problem)])
    func framingThatIsRefused(lines: [String], problem: ResponseHeadParser.Problem) {
        #expect(throws: problem) { try Self.read(["HTTP/1.1 200 OK"] + lines).get() }
    }

    @Test func eachHeadHasItsOwnFraming() throws {
        let parser = try Self.read([
            "HTTP/1.1 103 Early Hints", "Content-Encoding: gzip", "Transfer-Encoding: chunked", "", "HTTP/1.1 200 OK",
            "Content-Length: 2", ""
        ]).get()
        #expect(!parser.isChunked)
        #expect(parser.contentCodings.isEmpty)
    }

    /// The reason phrase kept for a response: the server's own, or `nil` where the standard one
    /// (or none, as HTTP/2 sends) stands.
    @Test(arguments: [
        ("HTTP/1.1 404 Gone Fishing\r\n", 404, "Gone Fishing" as String?),
        ("HTTP/1.1 404 Not Found\r\n", 404, nil),
        ("HTTP/1.1 404\r\n", 404, nil),
        ("HTTP/2 200 \r\n", 200, nil),
        ("HTTP/1.0 200 Fine  \n", 200, "Fine"),
        ("HTTP/1.1 409 Conflict\r\n", 409, nil),
        ("HTTP/1.1 409 Conflicts\r\n", 409, "Conflicts"),
        ("HTTP/1.1 409 Conflic\r\n", 409, "Conflic"),
        ("HTTP/1.1 409 conflict\r\n", 409, "conflict"),
        ("HTTP/1.1 599 Odd\r\n", 599, "Odd"),
        ("HTTP/2.0 404 Nope\r\n", 404, "Nope"),
        ("HTTP/1.1 200 OK \r\n", 200, nil),
        ("HTTP/1.1 200 O\r\n", 200, "O"),
        ("HTTP/1.1 299 Success\r\n", 299, nil)
    ])
    func reasonPhrase(line: String, status: Int, expected: String?) {
        let reason = Array(line.utf8).withUnsafeBytes {
            ResponseHeadParser.unusualReasonPhrase(ofStatusLine: $0, statusCode: status)
        }
        #expect(reason == expected)
    }

    @Test(arguments: [
        ("HTTP/2 200\r\n", true), ("HTTP/2 204 \r\n", true), ("HTTP/1.1 200 OK\r\n", false), ("HTTP/3 200\r\n", false),
        ("HTTP/", false), ("HTTP/2", true), ("HTTP 2 200", false), ("", false)
    ])
    func http2StatusLines(line: String, isHTTP2: Bool) {
        #expect(Array(line.utf8).withUnsafeBytes { ResponseHeadParser.isHTTP2StatusLine($0) } == isHTTP2)
    }
}
