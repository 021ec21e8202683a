import Testing

@testable import Connect

/// The opening handshake without a socket: SHA-1 against published vectors, RFC 6455's own
/// example key, the upgrade request's headers, and every check of a server's answer, with
/// permessage-deflate's parameters (RFC 7692).
@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        // Lengths around the 64-byte block and its 8-byte length field (from Python's hashlib).
        (String(repeating: "a", count: 55), "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (String(repeating: "a", count: 56), "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (String(repeating: "a", count: 63), "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (String(repeating: "a", count: 64), "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (String(repeating: "a", count: 65), "11655326c708d70319be2610e8a57d9a5b959d3b"),
        (String(repeating: "a", count: 1000), "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    ])
    func sha1(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    /// RFC 6455 §1.3's example.
    @Test func theAcceptValueOfTheRFCsKey() {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func keysAreSixteenRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<20).map { _ in WebSocketHandshake.randomKey(using: &generator) }
        #expect(Set(keys).count == 20)
        #expect(keys.allSatisfy { $0.count == 24 && $0.hasSuffix("==") })
    }

    @Test func theUpgradeRequestsHeaders() {
        let plain = WebSocketHandshake(key: "k")
        #expect(
            plain.requestHeaders.map { "\($0.name): \($0.value)" } == [
                "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: k", "Sec-WebSocket-Version: 13"
            ])
        let offering = WebSocketHandshake(key: "k", subprotocols: ["chat.v2", "chat"], compressionOffer: .default)
        #expect(
            offering.requestHeaders.dropFirst(4).map { "\($0.name): \($0.value)" } == [
                "Sec-WebSocket-Protocol: chat.v2, chat",
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"
            ])
    }

    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    static func answer(_ extra: [(String, String)] = [], dropping dropped: String? = nil) -> [HTTPHeader] {
        let base = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)]
        return (base.filter { $0.0 != dropped } + extra).map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    static let handshake = WebSocketHandshake(key: key, subprotocols: ["chat.v2", "chat"], compressionOffer: .default)

    @Test(arguments: [
        ([] as [(String, String)], WebSocketHandshake.Outcome()),
        ([("Sec-WebSocket-Protocol", "chat")], WebSocketHandshake.Outcome(subprotocol: "chat")),
        (
            [("Sec-WebSocket-Extensions", "permessage-deflate")],
            WebSocketHandshake.Outcome(compression: DeflateParameters())
        ),
        (
            [("Sec-WebSocket-Extensions", "permessage-deflate; server_no_context_takeover; client_max_window_bits=10")],
            WebSocketHandshake.Outcome(
                compression: { () -> DeflateParameters in
                    var parameters = DeflateParameters()
                    parameters.serverNoContextTakeover = true
                    parameters.clientMaxWindowBits = 10
                    return parameters
                }())
        )
    ])
    func answersThatCompleteTheHandshake(extra: [(String, String)], outcome: WebSocketHandshake.Outcome) throws {
        #expect(try Self.handshake.outcome(status: 101, headers: Self.answer(extra)) == outcome)
    }

    /// Names and tokens without regard to case, lists split at commas.
    @Test func headersAreReadAsHTTPReadsThem() throws {
        let headers = [
            HTTPHeader(name: "upgrade", value: "WebSocket"),
            HTTPHeader(name: "CONNECTION", value: "keep-alive, upgrade"),
            HTTPHeader(name: "sec-websocket-accept", value: Self.accept)
        ]
        #expect(try Self.handshake.outcome(status: 101, headers: headers) == WebSocketHandshake.Outcome())
    }

    @Test(arguments: [
        (200, [] as [(String, String)], nil as String?, "answered 200"),
        (101, [], "Upgrade", "does not upgrade to websocket"),
        (101, [], "Connection", "no Connection: upgrade"),
        (101, [], "Sec-WebSocket-Accept", "no Sec-WebSocket-Accept"),
        (101, [("Sec-WebSocket-Accept", "x")], nil, "not the one for this key"),
        (101, [("Sec-WebSocket-Protocol", "mqtt")], nil, "was not offered"),
        (101, [("Sec-WebSocket-Protocol", "chat, chat.v2")], nil, "was not offered"),
        (101, [("Sec-WebSocket-Extensions", "x-webkit-deflate-frame")], nil, "was not offered"),
        (101, [("Sec-WebSocket-Extensions", "permessage-deflate, permessage-deflate")], nil, "twice"),
        (101, [("Sec-WebSocket-Extensions", "permessage-deflate; server_max_window_bits=16")], nil, "not 8 to 15"),
        (101, [("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits=08")], nil, "not 8 to 15"),
        (101, [("Sec-WebSocket-Extensions", "permessage-deflate; server_max_window_bits")], nil, "missing"),
        (
            101, [("Sec-WebSocket-Extensions", "permessage-deflate; server_no_context_takeover=1")], nil,
            "takes no value"
        ),
        (101, [("Sec-WebSocket-Extensions", "permessage-deflate; mystery")], nil, "unknown"),
        (
            101,
            [
                (
                    "Sec-WebSocket-Extensions",
                    "permessage-deflate; client_no_context_takeover; client_no_context_takeover"
                )
            ], nil, "twice"
        )
    ])
    func answersThatFailTheHandshake(status: Int, extra: [(String, String)], dropping: String?, mentions: String) {
        do {
            _ = try Self.handshake.outcome(status: status, headers: Self.answer(extra, dropping: dropping))
            Issue.record("the handshake completed")
        } catch {
            #expect(error.reason.contains(mentions), "\(error.reason)")
        }
    }

    @Test func compressionThatWasNotOfferedFailsTheHandshake() {
        let plain = WebSocketHandshake(key: Self.key)
        #expect(throws: WebSocketHandshake.Failure.self) {
            try plain.outcome(status: 101, headers: Self.answer([("Sec-WebSocket-Extensions", "permessage-deflate")]))
        }
        #expect(throws: WebSocketHandshake.Failure.self) {
            try plain.outcome(status: 101, headers: Self.answer([("Sec-WebSocket-Protocol", "chat")]))
        }
    }

    @Test func aQuotedWindowSizeIsRead() throws {
        let parameters = try DeflateParameters(accepting: ["server_max_window_bits=\"12\""])
        #expect(parameters.serverMaxWindowBits == 12)
    }

    /// Each offer as the upgrade request writes it.
    @Test(arguments: [
        (WebSocketCompressionOffer.default, "permessage-deflate; client_max_window_bits"),
        (
            WebSocketCompressionOffer(serverMaxWindowBits: 10, clientMaxWindowBits: 9),
            "permessage-deflate; server_max_window_bits=10; client_max_window_bits=9"
        ),
        (
            WebSocketCompressionOffer(serverNoContextTakeover: true, clientNoContextTakeover: true),
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits"
        )
    ])
    func anOfferIsWrittenAsRFC7692Spells(offer: WebSocketCompressionOffer, header: String) {
        let handshake = WebSocketHandshake(key: Self.key, compressionOffer: offer)
        #expect(handshake.requestHeaders.first { $0.hasName("Sec-WebSocket-Extensions") }?.value == header)
    }

    /// The parameters a server's answer settles, with what the offer asked and promised.
    @Test(arguments: [
        // Connect's window offered at 9: the server names none (9), or narrows it.
        (WebSocketCompressionOffer(clientMaxWindowBits: 9), "permessage-deflate", false, false, 15, 9),
        (
            WebSocketCompressionOffer(clientMaxWindowBits: 9), "permessage-deflate; client_max_window_bits=8", false,
            false, 15, 8
        ),
        // The server's window asked for at 10: answered with 10 or less.
        (
            WebSocketCompressionOffer(serverMaxWindowBits: 10), "permessage-deflate; server_max_window_bits=10", false,
            false, 10, 15
        ),
        (
            WebSocketCompressionOffer(serverMaxWindowBits: 10), "permessage-deflate; server_max_window_bits=9", false,
            false, 9, 15
        ),
        // No context takeover: asked of the server and granted; promised by Connect whatever
        // the answer says.
        (
            WebSocketCompressionOffer(serverNoContextTakeover: true), "permessage-deflate; server_no_context_takeover",
            true, false, 15, 15
        ),
        (WebSocketCompressionOffer(clientNoContextTakeover: true), "permessage-deflate", false, true, 15, 15)
    ])
    func anAnswerSettlesTheOffer(
        offer: WebSocketCompressionOffer, answer: String, serverNoContextTakeover: Bool, clientNoContextTakeover: Bool,
        serverBits: Int, clientBits: Int
    ) throws {
        let handshake = WebSocketHandshake(key: Self.key, compressionOffer: offer)
        let settled = try #require(
            try handshake.outcome(status: 101, headers: Self.answer([("Sec-WebSocket-Extensions", answer)])).compression
        )
        #expect(settled.serverNoContextTakeover == serverNoContextTakeover)
        #expect(settled.clientNoContextTakeover == clientNoContextTakeover)
        #expect(settled.serverMaxWindowBits == serverBits)
        #expect(settled.clientMaxWindowBits == clientBits)
    }

    /// A 101 that accepts permessage-deflate without what the offer asked of the server fails
    /// the handshake (RFC 7692 section 5).
    @Test(arguments: [
        (WebSocketCompressionOffer(serverNoContextTakeover: true), "permessage-deflate", "server_no_context_takeover"),
        (WebSocketCompressionOffer(serverMaxWindowBits: 10), "permessage-deflate", "server_max_window_bits=10"),
        (
            WebSocketCompressionOffer(serverMaxWindowBits: 10), "permessage-deflate; server_max_window_bits=12",
            "larger than the 10"
        ),
        (
            WebSocketCompressionOffer(clientMaxWindowBits: 9), "permessage-deflate; client_max_window_bits=12",
            "more than the 9 offered"
        )
    ])
    func anAnswerThatDoesNotAcceptTheOfferFailsTheHandshake(
        offer: WebSocketCompressionOffer, answer: String, mentions: String
    ) {
        let handshake = WebSocketHandshake(key: Self.key, compressionOffer: offer)
        do {
            _ = try handshake.outcome(status: 101, headers: Self.answer([("Sec-WebSocket-Extensions", answer)]))
            Issue.record("the handshake completed")
        } catch {
            #expect(error.reason.contains(mentions), "\(error.reason)")
        }
    }

    @Test func windowsOutsideEightToFifteenAreRefusedBeforeAnyRequest() {
        #expect(WebSocketOptions(compression: WebSocketCompressionOffer(serverMaxWindowBits: 7)).problem != nil)
        #expect(WebSocketOptions(compression: WebSocketCompressionOffer(clientMaxWindowBits: 16)).problem != nil)
        #expect(WebSocketOptions(compression: WebSocketCompressionOffer(clientMaxWindowBits: 8)).problem == nil)
    }
}
