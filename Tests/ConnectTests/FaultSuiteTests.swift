import CZlib
import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// One way a server misbehaves, and what the request that meets it must get.
struct FaultScenario: Sendable, CustomTestStringConvertible {
    /// What the request must end with.
    enum Outcome: Sendable, Equatable {
        /// Success, with exactly this body.
        case body(String)
        /// An HTTP failure with this status (outside the accepted codes).
        case status(Int)
        /// A transport failure of this kind, after the request was sent.
        case transport(TransportFailure.Kind)
        case timedOut
        case tooLarge(limit: Int)
    }

    let name: String
    var method: HTTPMethod = .get
    /// The request's own timeout, for stalls.
    var timeout: Duration?
    var maximumRedirects = 10
    var maximumBodySize = 1 << 20
    /// Send a good request first, so that the fault meets a reused connection.
    var warmsUp = false
    /// How the server answers the request to `/fault…`.
    let answer: @Sendable (RecordedRequest) -> [RawServer.Step]
    let outcome: Outcome

    var testDescription: String { name }

    /// `steps`, with `gate` opened after the last that sends and before one that ends the
    /// connection's conversation (a close, a reset or a stall).
    static func opening(_ gate: TestGate, after steps: [RawServer.Step]) -> [RawServer.Step] {
        guard let last = steps.last else { return [.open(gate)] }
        switch last {
        case .close, .reset, .stall: return steps.dropLast() + [.open(gate), last]
        case .send, .pause, .open: return steps + [.open(gate)]
        }
    }

    init(
        _ name: String, method: HTTPMethod = .get, timeout: Duration? = nil, maximumRedirects: Int = 10,
        maximumBodySize: Int = 1 << 20,
        warmsUp: Bool = false, _ outcome: Outcome, answer: @escaping @Sendable (RecordedRequest) -> [RawServer.Step]
    ) {
        self.name = name
        self.method = method
        self.timeout = timeout
        self.maximumRedirects = maximumRedirects
        self.maximumBodySize = maximumBodySize
        self.warmsUp = warmsUp
        self.outcome = outcome
        self.answer = answer
    }

    /// The same answer whatever the request.
    init(
        _ name: String, method: HTTPMethod = .get, timeout: Duration? = nil, maximumRedirects: Int = 10,
        maximumBodySize: Int = 1 << 20,
        warmsUp: Bool = false, _ outcome: Outcome, steps: [RawServer.Step]
    ) {
        self.init(
            name, method: method, timeout: timeout, maximumRedirects: maximumRedirects,
            maximumBodySize: maximumBodySize,
            warmsUp: warmsUp, outcome
        ) { _ in steps }
    }
}

extension FaultScenario {
    static let malformed = TransportFailure.Kind.malformedResponse
    static let truncated = TransportFailure.Kind.truncatedResponse
    static let emptyReply = TransportFailure.Kind.connectionClosed
    static let receiveFailed = TransportFailure.Kind.connectionReset
    static let closedUnanswered = TransportFailure.Kind.connectionClosed
    static let tooManyRedirects = TransportFailure.Kind.tooManyRedirects

    static func ok(_ body: String, _ headers: [String] = []) -> RawServer.Step {
        .send(RawServer.response(headers: headers, body: body))
    }

    static let gzipped = WireTests.gzipped
    static let gzipHead = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "

    static let all: [FaultScenario] = [
        // The connection ends or breaks.
        FaultScenario("reset before the response", .transport(receiveFailed), steps: [.reset]),
        FaultScenario("close before the response", .transport(emptyReply), steps: [.close]),
        FaultScenario(
            "reset during the body", .transport(receiveFailed),
            steps: [
                .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), .pause(.milliseconds(20)), .reset
            ]),
        FaultScenario(
            "Content-Length longer than the body", .transport(truncated),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), .close]),
        FaultScenario(
            "Content-Length shorter than the body", .body("0123"),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n0123456789")]),
        FaultScenario(
            "Content-Length 0 with bytes after it", .body(""),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nextra bytes")]),
        FaultScenario(
            "chunked body cut off", .transport(truncated),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"), .close]),
        FaultScenario(
            "chunk size that is not hex", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")]),
        FaultScenario(
            "chunked body with trailers", .body("hello"),
            steps: [
                .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Checksum: 1\r\n\r\n")
            ]),
        FaultScenario(
            "Transfer-Encoding and Content-Length both", .body("hello"),
            steps: [
                .send(
                    "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                ), .close
            ]),
        FaultScenario(
            "chunk size with 0x", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n")]),
        FaultScenario(
            "chunk one byte longer than its data", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello\r\n0\r\n\r\n")]),
        FaultScenario(
            "chunk size with a sign", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n")]),
        FaultScenario(
            "chunk data without its CRLF", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX0\r\n\r\n")]),
        FaultScenario(
            "chunk extension", .body("hello"),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n0\r\n\r\n")]),
        FaultScenario(
            "trailer line without a colon", .transport(malformed),
            steps: [
                .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nno colon here\r\n\r\n")
            ]),
        FaultScenario(
            "gzip then chunked transfer codings", .transport(malformed),
            steps: [
                .send(
                    Data(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n\(String(gzipped.count, radix: 16))\r\n"
                            .utf8) + gzipped
                        + Data("\r\n0\r\n\r\n".utf8))
            ]),
        FaultScenario(
            "unknown transfer coding read to the close", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: x-custom\r\n\r\nstill coded"), .close]),
        FaultScenario(
            "chunked twice", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")]),
        FaultScenario(
            "folded Content-Length", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 0\r\n\r\n0123456789")]),
        FaultScenario(
            "folded first header line", warmsUp: true, .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\n X: y\r\nContent-Length: 2\r\n\r\nok")]),
        FaultScenario("keep-alive connection closed after the answer", .body("kept?"), steps: [ok("kept?"), .close]),
        FaultScenario(
            "keep-alive connection reset after the answer", .body("kept?"),
            steps: [ok("kept?"), .pause(.milliseconds(20)), .reset]),

        // Slow and endless.
        FaultScenario("stall before the head", timeout: .milliseconds(300), .timedOut, steps: [.stall]),
        FaultScenario(
            "stall inside the head", timeout: .milliseconds(300), .timedOut,
            steps: [.send("HTTP/1.1 200 OK\r\nContent-"), .stall]),
        FaultScenario(
            "stall during the body", timeout: .milliseconds(300), .timedOut,
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), .stall]),
        FaultScenario("trickled body", .body("abcdefghij"), steps: trickled("abcdefghij")),
        FaultScenario(
            "endless chunked body", maximumBodySize: 64 << 10, .tooLarge(limit: 64 << 10),
            steps: [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
                + Array(
                    repeating: RawServer.Step.send("4000\r\n" + String(repeating: "x", count: 0x4000) + "\r\n"),
                    count: 64)),
        FaultScenario(
            "Content-Length over the body limit", maximumBodySize: 1000, .tooLarge(limit: 1000),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "y", count: 5000))]),
        FaultScenario(
            "gzip bomb", maximumBodySize: 1 << 20, .tooLarge(limit: 1 << 20),
            steps: [
                .send(
                    Data("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: \(bomb.count)\r\n\r\n".utf8)
                        + bomb)
            ]),

        // The head.
        FaultScenario("garbage status line", .transport(malformed), steps: [.send("garbage\r\n\r\n"), .close]),
        FaultScenario("HTTP/0.9 answer", .transport(malformed), steps: [.send("<html>no head at all</html>"), .close]),
        FaultScenario(
            "non-numeric status", .transport(malformed), steps: [.send("HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n")]),
        FaultScenario(
            "two-digit status", .transport(malformed), steps: [.send("HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n")]),
        FaultScenario("HTTP/9", .transport(malformed), steps: [.send("HTTP/9 200 OK\r\nContent-Length: 0\r\n\r\n")]),
        FaultScenario(
            "status without a reason phrase", .body("ok"), steps: [.send("HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok")]
        ),
        FaultScenario("line ends without CR", .body("ok"), steps: [.send("HTTP/1.1 200 OK\nContent-Length: 2\n\nok")]),
        FaultScenario(
            "cut off after the status line", .transport(truncated), steps: [.send("HTTP/1.1 200 OK\r\n"), .close]),
        FaultScenario(
            "cut off inside the header block", .transport(truncated),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Half: val"), .close]),
        FaultScenario(
            "two different Content-Lengths", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc")]),
        FaultScenario(
            "Content-Length too large to represent", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nabc"), .close]),
        FaultScenario(
            "header line without a colon", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nthis is no header\r\nContent-Length: 2\r\n\r\nok")]),
        FaultScenario(
            "obs-fold continuation", .body("first second"),
            answer: { _ in
                [.send("HTTP/1.1 200 OK\r\nX-Folded: first\r\n second\r\nContent-Length: 12\r\n\r\nfirst second")]
            }),
        FaultScenario(
            "NUL in a header", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nX-Bad: a\u{0}b\r\nContent-Length: 2\r\n\r\nok")]),
        FaultScenario(
            "huge header line", .transport(malformed),
            steps: [
                .send(
                    "HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "h", count: 300_000)
                        + "\r\nContent-Length: 2\r\n\r\nok")
            ]),
        FaultScenario(
            "300 KB of headers", .transport(malformed),
            steps: [
                .send(
                    "HTTP/1.1 200 OK\r\n"
                        + (0..<3000).map { "X-Header-\($0): " + String(repeating: "v", count: 90) + "\r\n" }.joined()
                        + "Content-Length: 2\r\n\r\nok")
            ]),
        FaultScenario(
            "CR inside a header value", .transport(malformed),
            steps: [.send("HTTP/1.1 200 OK\r\nX-Bad: a\rb\r\nContent-Length: 2\r\n\r\nok")]),
        FaultScenario("status 999", .status(999), steps: [.send("HTTP/1.1 999 Weird\r\nContent-Length: 2\r\n\r\nok")]),
        FaultScenario(
            "status 299 of an unknown kind of success", .body("ok"),
            steps: [.send("HTTP/1.1 299 Whatever\r\nContent-Length: 2\r\n\r\nok")]),
        FaultScenario(
            "a thousand headers", .body("ok"),
            steps: [
                .send(
                    "HTTP/1.1 200 OK\r\n" + (0..<1000).map { "X-Header-\($0): \($0)\r\n" }.joined()
                        + "Content-Length: 2\r\n\r\nok")
            ]),
        FaultScenario(
            "interim 100 before the answer", .body("ok"), steps: [.send("HTTP/1.1 100 Continue\r\n\r\n"), ok("ok")]),
        FaultScenario(
            "several interim answers", .body("ok"),
            steps: [
                .send("HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"), ok("ok")
            ]),
        FaultScenario(
            "204 with a body", .body(""), steps: [.send("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello")]),
        FaultScenario(
            "304 with a body", .status(304),
            steps: [.send("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello")]),
        FaultScenario(
            "HEAD answered with a body", method: .head, .body(""),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")]),
        FaultScenario(
            "error status with a message", .status(503),
            steps: [
                .send(
                    RawServer.response(
                        status: "503 Service Unavailable", headers: ["Content-Type: application/json"],
                        body: #"{"message":"down"}"#))
            ]),

        // Bodies.
        FaultScenario(
            "complete gzip body", .body(WireTests.plain),
            steps: [.send(Data((gzipHead + "\(gzipped.count)\r\n\r\n").utf8) + gzipped)]),
        FaultScenario(
            "truncated gzip body", .transport(truncated),
            steps: [.send(Data((gzipHead + "\(gzipped.count / 2)\r\n\r\n").utf8) + gzipped.prefix(gzipped.count / 2))]),
        FaultScenario(
            "corrupt gzip body", .transport(malformed),
            steps: [.send(gzipHead + "11\r\n\r\nnot gzipped")]),
        FaultScenario(
            "content codings on two lines", .body(WireTests.plain),
            answer: { _ in
                let twice = gzippedThenDeflated
                return [
                    .send(
                        Data(
                            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Encoding: deflate\r\nContent-Length: \(twice.count)\r\n\r\n"
                                .utf8) + twice)
                ]
            }),
        FaultScenario(
            "content codings in one list, chunked", .body(WireTests.plain),
            answer: { _ in
                let twice = gzippedThenDeflated
                return [
                    .send(
                        Data(
                            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, deflate\r\nTransfer-Encoding: chunked\r\n\r\n\(String(twice.count, radix: 16))\r\n"
                                .utf8)
                            + twice + Data("\r\n0\r\n\r\n".utf8))
                ]
            }),
        FaultScenario(
            "truncated gzip in a chunked body", .transport(truncated),
            answer: { _ in
                let half = gzipped.prefix(gzipped.count / 2)
                return [
                    .send(
                        Data(
                            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n\(String(half.count, radix: 16))\r\n"
                                .utf8)
                            + half + Data("\r\n0\r\n\r\n".utf8))
                ]
            }),
        FaultScenario(
            "unknown content coding", .body("as sent"),
            steps: [.send("HTTP/1.1 200 OK\r\nContent-Encoding: x-custom\r\nContent-Length: 7\r\n\r\nas sent")]),

        // Redirects.
        FaultScenario(
            "redirect loop", .transport(tooManyRedirects),
            steps: [.send("HTTP/1.1 302 Found\r\nLocation: /fault\r\nContent-Length: 0\r\n\r\n")]),
        FaultScenario(
            "redirect chain past the limit", maximumRedirects: 3, .transport(tooManyRedirects),
            answer: { request in
                [.send("HTTP/1.1 302 Found\r\nLocation: /fault/\(request.uri.count)\r\nContent-Length: 0\r\n\r\n")]
            }),
        FaultScenario(
            "redirect to file:", .status(302),
            steps: [.send("HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\n\r\n")]),
        FaultScenario(
            "redirect to ftp:", .status(302),
            steps: [.send("HTTP/1.1 302 Found\r\nLocation: ftp://127.0.0.1/file\r\nContent-Length: 0\r\n\r\n")]),
        FaultScenario(
            "redirect without a Location", .status(302),
            steps: [.send("HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n")]),

        // What comes between requests.
        FaultScenario(
            "stray response on an idle connection", .body("mine"),
            steps: [ok("mine"), .pause(.milliseconds(20)), ok("stray")]),
        FaultScenario(
            "POST on a reused connection closed unanswered", method: .post, warmsUp: true, .transport(closedUnanswered),
            steps: [.close]),
        FaultScenario(
            "GET on a reused connection closed unanswered", warmsUp: true, .body("second try"),
            answer: { request in
                request.connectionID == 1 ? [.close] : [ok("second try")]
            })
    ]

    /// The gzipped body deflated again: `Content-Encoding: gzip, deflate`.
    static let gzippedThenDeflated = CompressedBodyTests.deflated(gzipped)

    /// A head, then `body` a byte every 5 ms.
    static func trickled(_ body: String) -> [RawServer.Step] {
        var steps: [RawServer.Step] = [.send("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n")]
        for character in body {
            steps.append(.send(String(character)))
            steps.append(.pause(.milliseconds(5)))
        }
        return steps
    }

    /// 64 MiB of zeros as a zlib stream: about 64 KiB on the wire.
    static let bomb = CompressedBodyTests.deflated(Data(count: 64 << 20))
}

/// The fault suite: each way a server can misbehave on the wire, the exact outcome, and a next
/// request on the same client that gets its own answer. `Sources/Connect/Connect.docc/ServerFaults.md`
/// lists the same scenarios and outcomes.
@Suite("Fault suite", .timeLimit(.minutes(3)))
struct FaultSuiteTests {
    @Test(arguments: FaultScenario.all)
    func scenario(_ scenario: FaultScenario) async throws {
        try await run(scenario, overAUnixSocket: false)
    }

    /// The same faults from a server on a Unix domain socket, whose connections libcurl names by
    /// no ports, so that the transport tells them apart another way (see
    /// `ConnectionTracker.unixConnection(through:opened:)`): a stray response there must not answer the
    /// next request either. A Unix socket has no reset: where the server resets a TCP
    /// connection it closes this one, which reads as a connection closed or a body cut short.
    @Test(arguments: FaultScenario.all)
    func scenarioOverAUnixSocket(_ scenario: FaultScenario) async throws {
        try await run(scenario, overAUnixSocket: true)
    }

    /// Runs `scenario` until an attempt meets its fault. A stall scenario's request has a short
    /// timeout of its own, which a loaded machine (a sanitizer run of every suite at once) can
    /// spend before the connection opens, so that the request never reaches the server: such an
    /// attempt met no fault and proves nothing either way, and is made again (up to five times,
    /// the last one checked whatever it meets).
    private func run(_ scenario: FaultScenario, overAUnixSocket: Bool) async throws {
        for attempt in 1...5 {
            if try await run(scenario, overAUnixSocket: overAUnixSocket, isLastAttempt: attempt == 5) { return }
        }
    }

    /// One attempt at `scenario`; `false` when the request timed out before it reached the
    /// server, unless `isLastAttempt`.
    private func run(_ scenario: FaultScenario, overAUnixSocket: Bool, isLastAttempt: Bool) async throws -> Bool {
        let socketPath = overAUnixSocket ? "/tmp/connect-fault-\(UUID().uuidString.prefix(8)).sock" : nil
        defer { if let socketPath { unlink(socketPath) } }
        let answered = TestGate()
        let server = try RawServer(unixSocketPath: socketPath) { request, _ in
            if request.path == "/warm-up" { return [FaultScenario.ok("warm")] }
            if request.path == "/next" { return [FaultScenario.ok("next")] }
            return FaultScenario.opening(answered, after: scenario.answer(request))
        }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.connections.unixSocketPath = socketPath
        configuration.maximumRedirects = scenario.maximumRedirects
        configuration.maximumResponseBodySize = scenario.maximumBodySize
        let connect = Connect(configuration: configuration)
        if scenario.warmsUp {
            #expect(try await connect.request(TestConnector(server, "/warm-up")).value == Data("warm".utf8))
        }
        let result = await outcome(
            connect.request(TestConnector(server, "/fault", method: scenario.method, timeout: scenario.timeout)))
        if !isLastAttempt, scenario.outcome == .timedOut, case .failure(ConnectError.timedOut) = result,
            !server.requests.contains(where: { $0.path == "/fault" })
        {
            return false
        }
        switch (scenario.outcome, result) {
        case (.body(let expected), .success(let body)):
            #expect(body == Data(expected.utf8))
        case (.status(let expected), .failure(ConnectError.http(let failure))):
            #expect(failure.statusCode == expected)
        case (.transport(let kind), .failure(ConnectError.transport(let failure))):
            let closedForReset =
                overAUnixSocket && kind == .connectionReset
                && [.connectionClosed, .truncatedResponse].contains(failure.kind)
            #expect(failure.kind == kind || closedForReset, "\(failure)")
            #expect(failure.requestSent)
        case (.timedOut, .failure(ConnectError.timedOut)):
            break
        case (.tooLarge(let limit), .failure(ConnectError.responseTooLarge(let actual))):
            #expect(actual == limit)
        default:
            Issue.record("expected \(scenario.outcome), got \(result)")
        }
        if scenario.method == .post {
            #expect(server.requests.filter { $0.path == "/fault" }.count == 1, "the POST went out once")
        }
        // Whatever the fault left behind, the next request on the same client gets its own answer:
        // once the server sent all it had to send (a stray response among it), and a moment more.
        #expect(await eventually { answered.isOpen }, "the server played its script")
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await connect.request(TestConnector(server, "/next")).value == Data("next".utf8))
        return true
    }

    @Test func thereAreAtLeastFortyScenariosWithDistinctNames() {
        #expect(FaultScenario.all.count >= 40)
        #expect(Set(FaultScenario.all.map(\.name)).count == FaultScenario.all.count)
    }

    @Test func theDocumentationListsEveryScenario() throws {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Sources/Connect/Connect.docc/ServerFaults.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        for scenario in FaultScenario.all {
            #expect(text.contains("| \(scenario.name) |"), "\(scenario.name) is not in ServerFaults.md")
        }
    }
}
