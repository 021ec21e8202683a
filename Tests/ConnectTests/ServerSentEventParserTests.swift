import Testing

@testable import Connect

/// The event-stream parsing rules of the WHATWG HTML standard, table by table, without a socket.
@Suite("Server-Sent Events parsing")
struct ServerSentEventParserTests {
    /// Parses `text` fed in pieces of `piece` bytes.
    static func events(_ text: String, piece: Int = .max) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        let bytes = Array(text.utf8)
        var events: [ServerSentEvent] = []
        var offset = 0
        while offset < bytes.count {
            let end = bytes.count - offset <= piece ? bytes.count : offset + piece
            events += try parser.feed(bytes[offset..<end])
            offset = end
        }
        return events
    }

    @Test(arguments: [
        ("data: hello\n\n", [ServerSentEvent(data: "hello")]),
        ("data: first\ndata: second\n\n", [ServerSentEvent(data: "first\nsecond")]),
        ("data:no space\n\n", [ServerSentEvent(data: "no space")]),
        ("data:  two spaces\n\n", [ServerSentEvent(data: " two spaces")]),
        ("data\n\n", [ServerSentEvent(data: "")]),  // a field without a colon
        ("data:\n\n", [ServerSentEvent(data: "")]),
        ("data\ndata\n\n", [ServerSentEvent(data: "\n")]),
        ("event: update\ndata: x\n\n", [ServerSentEvent(event: "update", data: "x")]),
        ("event:\ndata: x\n\n", [ServerSentEvent(data: "x")]),  // an empty type is "message"
        (": a comment\ndata: x\n\n", [ServerSentEvent(data: "x")]),
        ("data: x\r\n\r\n", [ServerSentEvent(data: "x")]),  // CRLF
        ("data: x\r\rdata: y\r\r", [ServerSentEvent(data: "x"), ServerSentEvent(data: "y")]),  // CR
        ("\u{FEFF}data: bom\n\n", [ServerSentEvent(data: "bom")]),  // a leading BOM
        ("data: x\n\ndata: y\n", [ServerSentEvent(data: "x")]),  // the unfinished one is dropped
        ("event: only\n\n", []),  // no data, no event
        ("Data: case matters\n\n", []),
        ("unknown: field\ndata: x\n\n", [ServerSentEvent(data: "x")]),
        ("data: a:b:c\n\n", [ServerSentEvent(data: "a:b:c")]),
        ("data: ünïcödé ✓\n\n", [ServerSentEvent(data: "ünïcödé ✓")])
    ])
    func events(text: String, expected: [ServerSentEvent]) throws {
        for piece in [1, 2, 3, Int.max] {
            #expect(try Self.events(text, piece: piece) == expected, "fed \(piece) bytes at a time")
        }
    }

    @Test func idsCarryOverUntilChanged() throws {
        let events = try Self.events("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\n")
        #expect(events.map(\.id) == ["1", "1", "2", nil])  // an empty id resets it
    }

    @Test func anIDWithNULIsIgnored() throws {
        var parser = ServerSentEventParser()
        let events = try parser.feed(Array("id: 7\ndata: a\n\nid: 8\u{0}9\ndata: b\n\n".utf8))
        #expect(events.map(\.id) == ["7", "7"])
        #expect(parser.lastEventID == "7")
    }

    @Test func anIDInAnUnfinishedEventIsNotTheLastEventID() throws {
        var parser = ServerSentEventParser()
        _ = try parser.feed(Array("id: 1\ndata: a\n\nid: 2\ndata: cut".utf8))
        #expect(parser.lastEventID == "1")
    }

    @Test(arguments: [
        ("retry: 2500\n", Duration?.some(.milliseconds(2500))), ("retry: 2.5\n", nil), ("retry: -1\n", nil),
        ("retry:\n", nil), ("retry: 10s\n", nil)
    ])
    func retry(line: String, time: Duration?) throws {
        var parser = ServerSentEventParser()
        let events = try parser.feed(Array((line + "data: x\n\n").utf8))
        #expect(parser.reconnectionTime == time)
        #expect(events.first?.retry == time)
    }

    @Test func aCRLFSplitBetweenChunksIsOneLineEnd() throws {
        var parser = ServerSentEventParser()
        var events = try parser.feed(Array("data: a\r".utf8))
        events += try parser.feed(Array("\ndata: b\r".utf8))
        events += try parser.feed(Array("\n\r\n".utf8))
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test func linesAndEventsOverTheLimitFail() {
        var parser = ServerSentEventParser(maximumLineLength: 16)
        #expect(throws: ServerSentEventParser.Failure.lineTooLong(limit: 16)) {
            _ = try parser.feed(Array("data: this line is far too long\n\n".utf8))
        }
        var gathering = ServerSentEventParser(maximumLineLength: 16)
        #expect(throws: ServerSentEventParser.Failure.lineTooLong(limit: 16)) {
            _ = try gathering.feed(Array("data: 12345\ndata: 12345\ndata: 12345\n\n".utf8))
        }
    }
}
