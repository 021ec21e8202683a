import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// WebSockets against a scripted server (``RawServer``) that writes exactly the bytes a case
/// needs: handshakes that must fail, answers in odd pieces, frames RFC 6455 forbids, and servers
/// that go silent.
@Suite(.timeLimit(.minutes(2)))
struct WebSocketScriptedTests {
    static func text(_ text: String) -> Data { ServerFrame.make(0x1, text) }

    /// The 101 a correct server sends for `request`, with `extra` header lines.
    static func accepting(_ request: RecordedRequest, extra: [String] = [], accept: String? = nil) -> String {
        let key = request.header("Sec-WebSocket-Key") ?? ""
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Accept: \(accept ?? WebSocketHandshake.acceptValue(for: key))\r\n"
        for line in extra { head += line + "\r\n" }
        return head + "\r\n"
    }

    static func open(
        _ server: RawServer, options: WebSocketOptions = .default, timeout: Duration? = nil
    )
        async throws -> WebSocket
    {
        var connector = TestConnector(
            url: URL(string: "ws://127.0.0.1:\(server.port)")!, endpoint: "/socket",
            headers: [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat")])
        connector.timeout = timeout
        return try await sharedConnect.webSocket(connector, options: options)
    }

    /// The handshake's failure, if it failed with a transport failure.
    static func handshakeFailure(_ server: RawServer, timeout: Duration? = nil) async -> ConnectError? {
        do {
            _ = try await open(server, timeout: timeout)
            return nil
        } catch {
            return error as? ConnectError
        }
    }

    /// Answers the handshake with a 101 that does not complete it.
    static let brokenAnswers: [(String, @Sendable (RecordedRequest) -> String)] = [
        ("the wrong accept value", { accepting($0, accept: "dGhlIHNhbXBsZSBub25jZQ==") }),
        (
            "no Upgrade header",
            {
                "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                    + WebSocketHandshake.acceptValue(for: $0.header("Sec-WebSocket-Key") ?? "") + "\r\n\r\n"
            }
        ),
        ("a subprotocol not offered", { accepting($0, extra: ["Sec-WebSocket-Protocol: superchat"]) }),
        ("an extension not offered", { accepting($0, extra: ["Sec-WebSocket-Extensions: permessage-deflate"]) })
    ]

    @Test(arguments: 0..<brokenAnswers.count)
    func a101ThatDoesNotCompleteTheHandshakeFails(case index: Int) async throws {
        let answer = Self.brokenAnswers[index].1
        let server = try RawServer { request, _ in [.send(answer(request)), .stall] }
        defer { server.shutdown() }
        let error = await Self.handshakeFailure(server)
        guard case .transport(let failure)? = error else {
            Issue.record("\(Self.brokenAnswers[index].0): \(String(describing: error))")
            return
        }
        #expect(failure.kind == .webSocketHandshake, "\(Self.brokenAnswers[index].0)")
    }

    @Test func framesInTheSameWriteAsTheHeadAreRead() async throws {
        let server = try RawServer { request, _ in
            [
                .send("HTTP/1.1 100 Continue\r\n\r\n"),
                .send(Data(Self.accepting(request, extra: ["Sec-WebSocket-Protocol: chat"]).utf8) + Self.text("first")),
                .send(ServerFrame.make(0x1, Array("sec".utf8), fin: false)),
                .pause(.milliseconds(20)),
                .send(ServerFrame.make(0x0, Array("ond".utf8))), .stall
            ]
        }
        defer { server.shutdown() }
        let socket = try await Self.open(server)
        #expect(socket.subprotocol == "chat")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("first"))
        #expect(try await messages.next() == .text("second"))
        #expect(server.requests.first?.header("Sec-WebSocket-Version") == "13")
    }

    @Test func theAnswerCanComeOneByteAtATime() async throws {
        let server = try RawServer { request, _ in
            let bytes = Data(Self.accepting(request).utf8) + Self.text("slowly")
            return bytes.map { .send(Data([$0])) } + [.stall]
        }
        defer { server.shutdown() }
        let socket = try await Self.open(server)
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("slowly"))
    }

    @Test func aRefusalsChunkedBodyReachesTheErrorHandler() async throws {
        let server = try RawServer { _, _ in
            [
                .send(
                    RawServer.response(
                        status: "403 Forbidden",
                        headers: ["Transfer-Encoding: chunked", "Content-Type: application/json"],
                        body: "13\r\n{\"message\":\"nope\"}\n\r\n0\r\n\r\n")), .stall
            ]
        }
        defer { server.shutdown() }
        let error = await Self.handshakeFailure(server)
        guard case .http(let failure)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 403 && failure.message == "nope")
    }

    @Test func aRefusalWhoseBodyEndsWithTheConnectionReachesTheErrorHandler() async throws {
        let server = try RawServer { _, _ in
            [
                .send("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{\"message\":\"who\"}"),
                .close
            ]
        }
        defer { server.shutdown() }
        let error = await Self.handshakeFailure(server)
        guard case .http(let failure)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 401 && failure.message == "who")
    }

    @Test func aMalformedOrMissingAnswerIsATypedFailure() async throws {
        let malformed = try RawServer { _, _ in [.send("HTTP/1.1 1O1 Switching\r\n\r\n"), .stall] }
        defer { malformed.shutdown() }
        guard case .transport(let failure)? = await Self.handshakeFailure(malformed) else {
            Issue.record("no transport failure")
            return
        }
        #expect(failure.kind == .malformedResponse)

        let silent = try RawServer { _, _ in [.close] }
        defer { silent.shutdown() }
        guard case .transport(let closed)? = await Self.handshakeFailure(silent) else {
            Issue.record("no transport failure")
            return
        }
        #expect(closed.kind == .connectionClosed)

        let stalled = try RawServer { _, _ in [.stall] }
        defer { stalled.shutdown() }
        guard case .timedOut? = await Self.handshakeFailure(stalled, timeout: .milliseconds(300)) else {
            Issue.record("no timeout")
            return
        }
    }

    /// Frames RFC 6455 forbids from a server, and the close code each must close with.
    static let violations: [(String, Data, UInt16)] = [
        ("a masked frame", ServerFrame.make(0x1, Array("x".utf8), masked: true), 1002),
        ("a reserved opcode", ServerFrame.make(0x3, []), 1002),
        ("RSV1 without permessage-deflate", Data([0xC1, 0x01, 0x78]), 1002),
        ("a fragmented ping", ServerFrame.make(0x9, [], fin: false), 1002),
        ("a ping of 126 bytes", ServerFrame.make(0x9, Array(repeating: 0, count: 126)), 1002),
        ("a continuation with nothing to continue", ServerFrame.make(0x0, Array("x".utf8)), 1002),
        (
            "a new message inside another", ServerFrame.make(0x1, [0x61], fin: false) + ServerFrame.make(0x1, [0x62]),
            1002
        ),
        ("text that is not UTF-8", ServerFrame.make(0x1, [0xC3, 0x28]), 1007),
        (
            "UTF-8 broken across fragments",
            ServerFrame.make(0x1, [0xE2, 0x82], fin: false) + ServerFrame.make(0x0, [0x28]), 1007
        ),
        ("a close code that may not be sent", ServerFrame.make(0x8, [0x03, 0xED]), 1002),
        ("a close with a one-byte payload", ServerFrame.make(0x8, [0x03]), 1002),
        ("a message over the maximum", ServerFrame.make(0x2, Array(repeating: 1, count: 2_000)), 1009)
    ]

    @Test(arguments: 0..<violations.count)
    func aForbiddenFrameClosesWithItsCode(case index: Int) async throws {
        let (name, bytes, code) = Self.violations[index]
        let server = try RawServer { request, _ in [.send(Data(Self.accepting(request).utf8) + bytes), .stall] }
        defer { server.shutdown() }
        var options = WebSocketOptions.default
        options.maximumMessageSize = 1_000
        let socket = try await Self.open(server, options: options)
        do {
            for try await _ in socket.messages {}
            Issue.record("\(name): the messages ended without an error")
        } catch WebSocketError.protocolViolation(let closeCode, _) {
            #expect(closeCode == code, "\(name)")
        }
    }

    @Test func anUnansweredKeepAlivePingDropsTheConnection() async throws {
        let server = try RawServer { request, _ in [.send(Self.accepting(request)), .stall] }
        defer { server.shutdown() }
        var options = WebSocketOptions.default
        options.pingInterval = .milliseconds(100)
        let socket = try await Self.open(server, options: options)
        await #expect(throws: WebSocketError.dropped("no pong came within the ping interval (0.1 seconds)")) {
            for try await _ in socket.messages {}
        }
    }

    /// The close ends the connection after its timeout and says that the server never answered;
    /// asked again, it says the same at once.
    @Test func closeSaysWhenTheServerNeverAnswered() async throws {
        let server = try RawServer { request, _ in [.send(Self.accepting(request)), .stall] }
        defer { server.shutdown() }
        var options = WebSocketOptions.default
        options.closeTimeout = .milliseconds(200)
        let socket = try await Self.open(server, options: options)
        let started = ContinuousClock.now
        let ending = try await socket.close()
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        let unanswered = WebSocketEnding.failed(
            .dropped("the server did not answer the close frame within 0.2 seconds"))
        #expect(ending == unanswered)
        #expect(!ending.isClean)
        #expect(socket.isClosed && socket.closeCode == nil && socket.ending == unanswered)
        #expect(try await socket.close() == unanswered)
    }

    @Test func theHandshakeRequestIsWellFormed() throws {
        let handshake = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==", subprotocols: ["chat", "superchat"])
        let head = try #require(
            handshake.requestHead(
                url: "https://example.com:8443/chat?room=1",
                headers: [
                    HTTPHeader(name: "Authorization", value: "Bearer t"), HTTPHeader(name: "Upgrade", value: "h2c"),
                    HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat, superchat")
                ]))
        #expect(
            String(decoding: head, as: UTF8.self)
                == "GET /chat?room=1 HTTP/1.1\r\nHost: example.com:8443\r\nAuthorization: Bearer t\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chat, superchat\r\n\r\n")
        let plain = try #require(WebSocketHandshake(key: "k").requestHead(url: "http://[::1]:80", headers: []))
        #expect(String(decoding: plain, as: UTF8.self).hasPrefix("GET / HTTP/1.1\r\nHost: [::1]\r\n"))
        #expect(WebSocketHandshake(key: "k").requestHead(url: "http:///nohost", headers: []) == nil)
        #expect(
            Connect.handshakeURL(for: URL(string: "wss://a.example/x?y=1")!).absoluteString == "https://a.example/x?y=1"
        )
        #expect(Connect.handshakeURL(for: URL(string: "WS://a.example")!).absoluteString == "http://a.example")
        #expect(Connect.handshakeURL(for: URL(string: "https://a.example")!).absoluteString == "https://a.example")
    }
}
