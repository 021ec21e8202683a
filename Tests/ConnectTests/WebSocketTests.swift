import ConnectFutures
import ConnectTestServer
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import Connect

/// WebSockets against SwiftNIO's `NIOWebSocket` server (``WebSocketServer``), in this process:
/// the handshake as a request through the middleware and the error handler, messages both ways,
/// control frames, the closing handshake from either side, violations, and flow control.
@Suite(.timeLimit(.minutes(2)))
struct WebSocketTests {
    static func connector(_ server: WebSocketServer, headers: [HTTPHeader] = []) -> TestConnector {
        TestConnector(url: server.webSocketURL, endpoint: "/chat", headers: headers)
    }

    @Test func echoesTextAndBinaryAndClosesCleanly() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(
            Self.connector(server, headers: [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "superchat, chat")]))
        #expect(socket.response.statusCode == 101)
        #expect(socket.subprotocol == "chat")
        try await socket.send("hello")
        try await socket.send(Data([1, 2, 3]))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("hello"))
        #expect(try await messages.next() == .binary(Data([1, 2, 3])))
        let ending = try await socket.close(code: 1000, reason: "done")
        #expect(ending.isClean && ending == socket.ending)
        #expect(socket.isClosed)
        #expect(socket.closeCode == 1000)
        #expect(try await messages.next() == nil)
        #expect(server.received == ["text:hello", "binary:3", "close:1000:done"])
        await #expect(throws: WebSocketError.closed) { try await socket.send("late") }
    }

    @Test func theHandshakeCarriesTheRequestsHeaders() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(
            Self.connector(server, headers: [HTTPHeader(name: "X-Room", value: "swift")]))
        #expect(socket.subprotocol == nil)
        try await socket.send("cmd:headers")
        var messages = socket.messages.makeAsyncIterator()
        guard case .text(let lines)? = try await messages.next() else {
            Issue.record("no headers came back")
            return
        }
        #expect(lines.contains("X-Room: swift"))
        #expect(lines.contains("Sec-WebSocket-Version: 13"))
        #expect(lines.contains("User-Agent: Connect/0.1"))
        let request = try #require(server.requests.first)
        #expect(request.uri == "/chat")
        #expect(request.header("Host") == "127.0.0.1:\(server.port)")
        try await socket.close()
    }

    @Test func theHandshakeIsMonitoredAndTraced() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        var configuration = ConnectConfiguration()
        configuration.tracer = tracer
        let monitor = CountingMonitor()
        let connect = Connect(middleware: ConnectMiddleware(monitors: [monitor]), configuration: configuration)
        let socket = try await connect.webSocket(Self.connector(server), debugResponse: true)
        #expect(monitor.started.value == 1)
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(101))
        // The span's context went out with the handshake.
        #expect(server.requests.first?.header(InMemoryTracer.traceIDKey) == span.spanContext.traceID)
        try await socket.close()
    }

    @Test func theServerClosesWithACodeAndReason() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        try await socket.send("cmd:close 4000 bye now")
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received.isEmpty)
        #expect(socket.closeCode == 4000)
        #expect(socket.closeReason == "bye now")
        #expect(socket.ending == .closed(code: 4000, reason: "bye now"))
        // Closing a closed socket says how it ended, at once.
        #expect(try await socket.close() == .closed(code: 4000, reason: "bye now"))
        // The close was echoed with the server's code.
        #expect(await eventually { server.received.last == "close:4000:" })
    }

    @Test func aDroppedConnectionIsATypedError() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        try await socket.send("cmd:drop")
        await #expect(throws: WebSocketError.dropped("the server closed the connection")) {
            for try await _ in socket.messages {}
        }
        #expect(socket.closeCode == nil)
        #expect(socket.isClosed)
        #expect(socket.ending == .failed(.dropped("the server closed the connection")))
    }

    @Test func fragmentsWithAPingBetweenMakeOneMessage() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        try await socket.send("cmd:fragments")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("fragmented ✓"))
        // The ping between the fragments was answered with its payload.
        #expect(try await messages.next() == .text("pong:between"))
        try await socket.close()
    }

    @Test func pingReturnsWhenThePongArrives() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        for _ in 0..<3 { try await socket.ping() }
        #expect(server.received == ["ping", "ping", "ping"])
        try await socket.close()
    }

    @Test(arguments: [("cmd:bad-utf8", UInt16(1007)), ("cmd:reserved-bit", 1002)])
    func aViolationClosesWithItsCode(command: String, code: UInt16) async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        try await socket.send(command)
        do {
            for try await _ in socket.messages {}
            Issue.record("the messages ended without an error")
        } catch let error as WebSocketError {
            guard case .protocolViolation(let closeCode, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(closeCode == code)
        }
        #expect(await eventually { server.received.last?.hasPrefix("close:\(code):") == true })
    }

    @Test func aRefusedHandshakeGoesThroughTheErrorHandler() async throws {
        let server = try WebSocketServer { _ in .json(#"{"message":"no entry"}"#, status: 403) }
        defer { server.shutdown() }
        do {
            _ = try await sharedConnect.webSocket(Self.connector(server))
            Issue.record("the handshake succeeded")
        } catch let error as ConnectError {
            #expect(error.statusCode == 403)
            guard case .http(let failure) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(failure.message == "no entry")
        }
    }

    @Test func aTokenAuthenticatorRefreshesOnA401ToTheHandshake() async throws {
        let server = try WebSocketServer { request in
            request.header("Authorization") == "Bearer fresh" ? nil : .json(#"{"message":"expired"}"#, status: 401)
        }
        defer { server.shutdown() }
        let authenticator = TokenAuthenticator(token: "stale") { "fresh" }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [authenticator], retriers: [authenticator]))
        let socket = try await connect.webSocket(Self.connector(server))
        try await socket.send("hi")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("hi"))
        // The refused handshake, then the one with the fresh token.
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer stale", "Bearer fresh"])
        try await socket.close()
    }

    @Test func aSlowReaderGetsEveryMessageInOrder() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        var options = WebSocketOptions.default
        options.receiveBufferSize = 64 << 10
        let socket = try await sharedConnect.webSocket(Self.connector(server), options: options)
        try await socket.send("cmd:flood 300 20000")
        var index = 0
        for try await message in socket.messages {
            guard case .binary(let data) = message else { break }
            #expect(data.count == 20_000 && data.allSatisfy { $0 == UInt8(truncatingIfNeeded: index) })
            index += 1
            if index % 50 == 0 { try await Task.sleep(for: .milliseconds(20)) }
            if index == 300 { break }
        }
        #expect(index == 300)
        try await socket.close()
    }

    @Test func sendsFromManyTasksGoOutWholeFrameAfterFrame() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<20 {
                group.addTask {
                    for index in 0..<10 {
                        try await socket.send(String(repeating: "\(task).\(index);", count: 2_000))
                    }
                }
            }
            try await group.waitForAll()
        }
        var seen = Set<String>()
        for try await message in socket.messages {
            guard case .text(let text) = message else { break }
            let unit = String(text.prefix { $0 != ";" }) + ";"
            #expect(text == String(repeating: unit, count: 2_000))
            seen.insert(unit)
            if seen.count == 200 { break }
        }
        #expect(seen.count == 200)
        try await socket.close()
    }

    /// The next `count` messages of `socket`.
    static func messages(_ count: Int, from socket: WebSocket) async throws -> [WebSocketMessage?] {
        var messages = socket.messages.makeAsyncIterator()
        var read: [WebSocketMessage?] = []
        for _ in 0..<count { read.append(try await messages.next()) }
        return read
    }

    /// A send made on the task's own thread that the socket cannot take at once (8 MiB) is
    /// finished by the transfer thread, and what is sent after it goes out after it.
    @Test func aSendTheSocketCannotTakeAtOnceFinishesInOrder() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        let large = cyclicBytes(8 << 20, times: 7, modulo: 256)
        // Read while sending: the server echoes, and a client that does not read would stall it.
        async let echoes = Self.messages(3, from: socket)
        try await socket.send(large)
        try await socket.send("after")
        try await socket.send(Data([9]))
        #expect(try await echoes == [.binary(large), .text("after"), .binary(Data([9]))])
        try await socket.close()
    }

    @Test func openSocketsDoNotCountAgainstTheConnectionsPerHost() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 2
        let connect = Connect(configuration: configuration)
        var sockets: [WebSocket] = []
        for _ in 0..<5 { sockets.append(try await connect.webSocket(Self.connector(server))) }
        // Requests to the same host still go (the server answers a plain GET with 400).
        for _ in 0..<3 {
            #expect(await connectError(connect.request(TestConnector(server, "/plain")))?.statusCode == 400)
        }
        for (index, socket) in sockets.enumerated() {
            try await socket.send("\(index)")
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("\(index)"))
            try await socket.close()
        }
    }

    @Test func aConnectionTheExchangeRefusesAfterAllIsClosed() async throws {
        struct RefuseEverything: Interceptor {
            func process(_ result: inout Result<Response, any Error>, for request: Request) async {
                result = .failure(ConnectError.invalidRequest("refused by an interceptor"))
            }
        }
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(interceptors: [RefuseEverything()]))
        await #expect(throws: ConnectError.invalidRequest("refused by an interceptor")) {
            _ = try await connect.webSocket(Self.connector(server))
        }
        #expect(await eventually { server.received.last == "close:1001:" })
    }

    @Test func releasingTheSocketClosesIt() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        var socket: WebSocket? = try await sharedConnect.webSocket(Self.connector(server))
        try await socket?.send("x")
        socket = nil
        #expect(await eventually { server.received.last == "close:1001:" })
    }

    @Test func cancellingTheReadingTaskClosesTheConnection() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        let reading = Task {
            for try await _ in socket.messages {}
        }
        try await Task.sleep(for: .milliseconds(50))
        reading.cancel()
        await #expect(throws: ConnectError.cancelled) { try await reading.value }
        #expect(await eventually { server.received.last == "close:1001:" })
    }

    @Test func theApplicationsMistakesAreRefused() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let socket = try await sharedConnect.webSocket(Self.connector(server))
        await #expect(throws: WebSocketError.self) { try await socket.close(code: 1005) }
        try await socket.close()
        await #expect(throws: ConnectError.self) {
            _ = try await sharedConnect.webSocket(TestConnector(url: server.webSocketURL, method: .post))
        }
        await #expect(throws: ConnectError.self) {
            _ = try await sharedConnect.request(TestConnector(url: server.webSocketURL)).value
        }
    }
}

/// WebSockets against Python's `websockets` (PyPI), over ws:// and wss://, and through a CONNECT
/// proxy (`Tests/PythonPeers/connect_proxy.py`).
@Suite(
    "WebSockets against Python's websockets", .timeLimit(.minutes(2)),
    .enabled(if: PythonPeer.isInstalled("python3") || ProcessInfo.processInfo.environment["CI"] != nil))
struct PythonWebSocketTests {
    static func peer(tls: Bool = false) async throws -> PythonPeer {
        try await PythonPeer(script: "websocket_peer.py") { port in
            ["\(port)"]
                + (tls ? ["--tls", NginxServer.file("server.pem").path, NginxServer.file("server.key").path] : [])
        }
    }

    static func trustingTestCA() -> Connect {
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        return Connect(configuration: configuration)
    }

    @Test(arguments: [false, true])
    func echoesAndClosesOverWSAndWSS(tls: Bool) async throws {
        let peer = try await Self.peer(tls: tls)
        defer { peer.shutdown() }
        let url = URL(string: "\(tls ? "wss" : "ws")://localhost:\(peer.port)/")!
        let socket = try await Self.trustingTestCA().webSocket(
            TestConnector(url: url, headers: [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat")]))
        #expect(socket.subprotocol == "chat")
        var messages = socket.messages.makeAsyncIterator()
        try await socket.send("héllo")
        #expect(try await messages.next() == .text("héllo"))
        let bytes = cyclicBytes(100_000, times: 7, modulo: 256)
        try await socket.send(bytes)
        #expect(try await messages.next() == .binary(bytes))
        try await socket.send("cmd:big 3000000")
        #expect(try await messages.next() == .binary(cyclicBytes(3_000_000)))
        try await socket.send("cmd:fragments")
        #expect(try await messages.next() == .text("fragmented ✓"))
        try await socket.send("cmd:compression")
        #expect(try await messages.next() == .text("none"))
        try await socket.ping()
        try await socket.send("cmd:close 4001 python says bye")
        #expect(try await messages.next() == nil)
        #expect(socket.closeCode == 4001)
        #expect(socket.closeReason == "python says bye")
    }

    @Test func permessageDeflateIsNegotiatedAndUsedBothWays() async throws {
        let peer = try await Self.peer()
        defer { peer.shutdown() }
        var options = WebSocketOptions.default
        options.compression = .default
        let socket = try await sharedConnect.webSocket(
            TestConnector(
                url: URL(string: "ws://localhost:\(peer.port)/")!,
                headers: [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat")]),
            options: options)
        #expect(socket.response.header("Sec-WebSocket-Extensions")?.hasPrefix("permessage-deflate") == true)
        // What the server accepted, without reading its header: Python's websockets keeps the
        // offer's client_max_window_bits and its own defaults.
        let compression = try #require(socket.compression)
        #expect((8...15).contains(compression.clientMaxWindowBits))
        #expect((8...15).contains(compression.serverMaxWindowBits))
        var messages = socket.messages.makeAsyncIterator()
        try await socket.send("cmd:compression")
        #expect(try await messages.next() == .text("PerMessageDeflate"))
        let text = String(repeating: #"{"user":"ada","text":"hello, wörld"}"#, count: 2_000)
        for _ in 0..<3 {
            try await socket.send(text)
            #expect(try await messages.next() == .text(text))
        }
        try await socket.send("cmd:big 3000000")
        #expect(try await messages.next() == .binary(cyclicBytes(3_000_000)))
        try await socket.send("cmd:fragments")
        #expect(try await messages.next() == .text("fragmented ✓"))
        try await socket.close()
    }

    @Test func wssRefusesAServerItDoesNotTrust() async throws {
        let peer = try await Self.peer(tls: true)
        defer { peer.shutdown() }
        await #expect(throws: ConnectError.self) {
            _ = try await sharedConnect.webSocket(TestConnector(url: URL(string: "wss://localhost:\(peer.port)/")!))
        }
    }

    @Test(arguments: [false, true])
    func theConnectionGoesThroughTheProxy(tls: Bool) async throws {
        let peer = try await Self.peer(tls: tls)
        defer { peer.shutdown() }
        let proxy = try await PythonPeer(script: "connect_proxy.py") { ["\($0)"] }
        defer { proxy.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        // The test certificate names localhost; the proxy alone knows where "localhost" is here.
        configuration.proxy = .http(host: "127.0.0.1", port: proxy.port, username: "me", password: "secret")
        let connect = Connect(configuration: configuration)
        let chat = [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat")]
        let socket = try await connect.webSocket(
            TestConnector(url: URL(string: "\(tls ? "wss" : "ws")://localhost:\(peer.port)/")!, headers: chat))
        try await socket.send("through")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("through"))
        try await socket.close()

        configuration.proxy = .http(host: "127.0.0.1", port: proxy.port)
        await #expect(throws: ConnectError.self) {
            _ = try await Connect(configuration: configuration).webSocket(
                TestConnector(url: URL(string: "ws://localhost:\(peer.port)/")!, headers: chat))
        }
    }
}
