import ConnectFutures
import Foundation
import Testing

@testable import Connect

/// WebSockets over ``MockTransport``: the app's `WebSocket` against a scripted peer, with the
/// handshake going through the exchange as it does against a server.
@Suite("Mock WebSockets", .timeLimit(.minutes(3)))
struct MockWebSocketTests {
    static var chat: TestConnector { TestConnector(url: URL(string: "wss://chat.example")!, endpoint: "/rooms/swift") }

    static func echo(_ peer: MockWebSocketPeer) async throws {
        for await message in peer.messages { try await peer.send(message) }
    }

    @Test func anAppTalksToAScriptedPeer() async throws {
        let mock = MockTransport()
        let peers = Locked<[MockWebSocketPeer]>([])
        mock.register(
            .webSocket { peer in
                peers.withLock { $0.append(peer) }
                try await Self.echo(peer)
            }, for: Self.chat)
        let socket = try await Connect(transport: mock).webSocket(Self.chat)
        #expect(socket.response.statusCode == 101)
        #expect(socket.compression == nil, "the mock compresses nothing")
        #expect(socket.response.header("Upgrade") == "websocket")
        try await socket.send("hello")
        try await socket.send(Data([1, 2, 3]))
        try await socket.ping()
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        #expect(try await iterator.next() == .binary(Data([1, 2, 3])))
        #expect(try await socket.close(code: 1000, reason: "done") == .closed(code: 1000, reason: "done"))
        #expect(try await iterator.next() == nil)
        #expect(socket.isClosed && socket.closeCode == 1000 && socket.closeReason == "done")
        let peer = try #require(peers.withLock { $0.first })
        #expect(peer.closeCode == 1000 && peer.closeReason == "done")
        #expect(peer.request.url.absoluteString == "https://chat.example/rooms/swift")
        await #expect(throws: WebSocketError.closed) { try await socket.send("late") }
    }

    @Test func thePeerSendsAndCloses() async throws {
        let mock = MockTransport()
        mock.register(
            .webSocket { peer in
                try await peer.send("one")
                try await peer.send(Data([9]))
                peer.close(code: 4000, reason: "bye")
            }, for: Self.chat)
        let socket = try await Connect(transport: mock).webSocket(Self.chat)
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == [.text("one"), .binary(Data([9]))])
        #expect(socket.closeCode == 4000 && socket.closeReason == "bye")
    }

    @Test func aConversationThatThrowsDropsTheConnection() async throws {
        struct Broken: Error {}
        let mock = MockTransport()
        mock.register(
            .webSocket { peer in
                try await peer.send("last words")
                throw Broken()
            }, for: Self.chat)
        let socket = try await Connect(transport: mock).webSocket(Self.chat)
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("last words"))
        do {
            _ = try await iterator.next()
            Issue.record("the reader should have thrown")
        } catch let error as WebSocketError {
            guard case .dropped(let reason) = error else {
                Issue.record("expected dropped, got \(error)")
                return
            }
            #expect(reason.contains("Broken"))
        }
        #expect(socket.closeCode == nil)
    }

    @Test func lettingGoOfTheSocketClosesWithGoingAway() async throws {
        let mock = MockTransport()
        let ended = Locked<UInt16?>(nil)
        let done = Promise<Void>()
        mock.register(
            .webSocket { peer in
                for await _ in peer.messages {}
                ended.withLock { $0 = peer.closeCode }
                done.succeed(())
            }, for: Self.chat)
        do {
            let socket = try await Connect(transport: mock).webSocket(Self.chat)
            try await socket.send("bye")
        }
        try await done.future.value
        #expect(ended.withLock { $0 } == 1001)
    }

    @Test func theHandshakeRunsThroughTheMiddleware() async throws {
        let mock = MockTransport()
        let peerRequest = Locked<Request?>(nil)
        mock.register(
            .webSocket(subprotocol: "chat.v2") { peer in
                peerRequest.withLock { $0 = peer.request }
                peer.close()
            }, for: Self.chat)
        struct Token: RequestAdapter {
            func adapt(_ request: Request) async throws -> Request {
                var request = request
                request.setHeader(HTTPHeader(name: "Authorization", value: "Bearer t"))
                return request
            }
        }
        let middleware = ConnectMiddleware(adapters: [Token()])
        let connect = Connect(middleware: middleware, transport: mock)
        let offering = TestConnector(
            url: URL(string: "wss://chat.example")!, endpoint: "/rooms/swift",
            headers: [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat.v1, chat.v2")])
        let socket = try await connect.webSocket(offering)
        #expect(socket.subprotocol == "chat.v2")
        for try await _ in socket.messages {}
        #expect(peerRequest.withLock { $0?.headers.first { $0.hasName("Authorization") }?.value } == "Bearer t")
        #expect(mock.requests.count == 1)
    }

    @Test func theOptionsOfferSubprotocols() async throws {
        let mock = MockTransport()
        let offered = Locked<String?>(nil)
        mock.register(
            .webSocket(subprotocol: "chat.v1") { peer in
                offered.withLock { $0 = peer.request.headers.first { $0.hasName("Sec-WebSocket-Protocol") }?.value }
            }, for: Self.chat)
        var options = WebSocketOptions.default
        options.subprotocols = ["chat.v2", "chat.v1"]
        let socket = try await Connect(transport: mock).webSocket(Self.chat, options: options)
        #expect(socket.subprotocol == "chat.v1")
        for try await _ in socket.messages {}
        #expect(offered.withLock { $0 } == "chat.v2, chat.v1")

        options.subprotocols = ["chat v3"]
        await #expect(
            throws: ConnectError.invalidRequest("WebSocketOptions: the subprotocol \"chat v3\" is not an HTTP token")
        ) {
            _ = try await Connect(transport: mock).webSocket(Self.chat, options: options)
        }
    }

    @Test func aSubprotocolTheRequestDidNotOfferFailsTheHandshake() async throws {
        let mock = MockTransport()
        mock.register(.webSocket(subprotocol: "chat.v2") { _ in }, for: Self.chat)
        do {
            _ = try await Connect(transport: mock).webSocket(Self.chat)
            Issue.record("the handshake should have failed")
        } catch ConnectError.transport(let failure) {
            #expect(failure.kind == .webSocketHandshake)
            #expect(failure.message.contains("chat.v2"))
        }
    }

    @Test func aPlainRequestMeetingAWebSocketMockFails() async throws {
        let mock = MockTransport()
        mock.register(.webSocket { _ in }, when: { _ in true })
        let result = await outcome(
            Connect(transport: mock).request(TestConnector(url: URL(string: "https://a.example")!)))
        guard case .failure(ConnectError.transport(let failure)) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure.kind == .noMockResponse)
        #expect(failure.message.contains("WebSocket's opening handshake"))
    }

    @Test func anAnswerOtherThan101GoesToTheErrorHandler() async throws {
        let mock = MockTransport()
        mock.register(.json(#"{"message":"no such room"}"#, status: 404), for: Self.chat)
        do {
            _ = try await Connect(transport: mock).webSocket(Self.chat)
            Issue.record("the handshake should have failed")
        } catch ConnectError.http(let failure) {
            #expect(failure.statusCode == 404)
        }
    }

    @Test func aCloseCodeNoFrameMayCarryIsRefused() async throws {
        let mock = MockTransport()
        mock.register(.webSocket(Self.echo), for: Self.chat)
        let socket = try await Connect(transport: mock).webSocket(Self.chat)
        await #expect(
            throws: WebSocketError.invalidArgument(
                "1005 is not a status code a close frame may carry (1000-1003, 1007-1014, 3000-4999)")
        ) {
            try await socket.close(code: 1005)
        }
        #expect(!socket.isClosed)
        try await socket.close()
    }

    /// A peer that sends more than the app's receive buffer holds waits until the app reads.
    @Test func aPeerWaitsForASlowReader() async throws {
        let mock = MockTransport()
        let sent = Locked(0)
        mock.register(
            .webSocket { peer in
                for index in 0..<3 {
                    try await peer.send(.binary(Data(repeating: UInt8(index), count: 8)))
                    sent.withLock { $0 += 1 }
                }
            }, for: Self.chat)
        var options = WebSocketOptions.default
        options.receiveBufferSize = 10
        let socket = try await Connect(transport: mock).webSocket(Self.chat, options: options)
        // The second message takes the bytes held past the limit: its send waits for the reader.
        for _ in 0..<200 where sent.withLock({ $0 }) < 1 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(sent.withLock { $0 } <= 1)
        var received = 0
        for try await _ in socket.messages { received += 1 }
        #expect(received == 3)
        #expect(sent.withLock { $0 } == 3)
    }

    /// A transport of the app's own carries plain requests only: it cannot serve a WebSocket.
    @Test func aTransportOfTheAppsOwnCannotOpenAWebSocket() async throws {
        struct Plain: Transport {
            func send(_ request: Request) -> Future<Response> { Future(error: ConnectError.cancelled) }
            func cancelAll() {}
        }
        do {
            _ = try await Connect(transport: Plain()).webSocket(Self.chat)
            Issue.record("the opening should have failed")
        } catch ConnectError.invalidRequest(let message) {
            #expect(message == "WebSockets need Connect's own transport or a MockTransport, not Plain")
        }
    }
}
