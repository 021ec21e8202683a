import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// The Autobahn|Testsuite's compression cases, sections 12 and 13, against Python's `websockets`
/// (`Tests/PythonPeers/websocket_compression_peer.py`): the server sends series of messages
/// compressed with permessage-deflate, the client echoes each compressed, and the server checks
/// every echo.
///
/// Section 12 varies the data (Autobahn's five test files, as five kinds of generated data) with
/// the default parameters; section 13 varies the parameters the server answers with, on JSON.
/// Each has Autobahn's 18 rows of message and fragment sizes (`MSG_SIZES`). Autobahn sends 1000
/// messages per case to time them; here each case sends ``messagesPerCase``, enough for context
/// takeover to carry from one message to the next (under a sanitizer, two messages in three rows).
///
/// Serialized: one Python server at a time, so that the other suites keep the machine.
@Suite(
    "Autobahn|Testsuite compression cases against Python's websockets", .serialized, .timeLimit(.minutes(5)),
    .enabled(if: PythonPeer.isInstalled("python3") || ProcessInfo.processInfo.environment["CI"] != nil))
struct AutobahnCompressionTests {
    /// One subsection: a kind of data, and the parameters the server negotiates.
    struct Variant: Sendable, CustomTestStringConvertible {
        let id: String
        let kind: String
        let serverArguments: [String]
        /// What the server's `Sec-WebSocket-Extensions` must say.
        let negotiated: [String]
        /// What Connect offers.
        var offer = WebSocketCompressionOffer.default
        var testDescription: String { "\(id) \(kind) \(serverArguments.joined(separator: " ")) offering \(offer)" }
    }

    /// Autobahn's message sizes and the fragment size the server cuts them to (0: none).
    static let rows: [(size: Int, fragment: Int)] = [
        (16, 0), (64, 0), (256, 0), (1024, 0), (4096, 0), (8192, 0), (16384, 0), (32768, 0), (65536, 0), (131_072, 0),
        (8192, 256), (16384, 256), (32768, 256), (65536, 256), (131_072, 256), (131_072, 1024), (131_072, 4096),
        (131_072, 32768)
    ]
    static let messagesPerCase = AutobahnCases.isSanitized ? 2 : 8
    /// Every row, or under a sanitizer the smallest message and the two extremes of fragmenting.
    static var rowsToRun: [(offset: Int, element: (size: Int, fragment: Int))] {
        Array(rows.enumerated()).filter { !AutobahnCases.isSanitized || [0, 10, 17].contains($0.offset) }
    }

    static let variants: [Variant] = [
        Variant(id: "12.1", kind: "json", serverArguments: [], negotiated: ["permessage-deflate"]),
        Variant(id: "12.2", kind: "bitmap", serverArguments: [], negotiated: ["permessage-deflate"]),
        Variant(id: "12.3", kind: "prose", serverArguments: [], negotiated: ["permessage-deflate"]),
        Variant(id: "12.4", kind: "html", serverArguments: [], negotiated: ["permessage-deflate"]),
        Variant(id: "12.5", kind: "noise", serverArguments: [], negotiated: ["permessage-deflate"]),
        Variant(id: "13.1", kind: "json", serverArguments: [], negotiated: ["permessage-deflate"]),
        Variant(
            id: "13.2", kind: "json", serverArguments: ["--client-no-context-takeover"],
            negotiated: ["client_no_context_takeover"]),
        Variant(
            id: "13.3", kind: "json", serverArguments: ["--client-max-window-bits", "9"],
            negotiated: ["client_max_window_bits=9"]),
        Variant(
            id: "13.4", kind: "json", serverArguments: ["--client-max-window-bits", "15"],
            negotiated: ["client_max_window_bits=15"]),
        Variant(
            id: "13.5", kind: "json",
            serverArguments: ["--client-max-window-bits", "9", "--client-no-context-takeover"],
            negotiated: ["client_max_window_bits=9", "client_no_context_takeover"]),
        Variant(
            id: "13.6", kind: "json",
            serverArguments: ["--client-max-window-bits", "15", "--client-no-context-takeover"],
            negotiated: ["client_max_window_bits=15", "client_no_context_takeover"]),
        // Autobahn's 13.7 offers several sets and lands on 13.5's; here the server limits its
        // own side instead, which the client must inflate.
        Variant(
            id: "13.7", kind: "json",
            serverArguments: ["--server-max-window-bits", "9", "--server-no-context-takeover"],
            negotiated: ["server_max_window_bits=9", "server_no_context_takeover"]),
        // Autobahn's 13.2 to 13.6 as Autobahn runs them: the client under test offers the
        // parameters (a server at its defaults accepts them).
        Variant(
            id: "13.2 offered", kind: "json", serverArguments: [], negotiated: ["permessage-deflate"],
            offer: WebSocketCompressionOffer(clientNoContextTakeover: true)),
        Variant(
            id: "13.3 offered", kind: "json", serverArguments: [], negotiated: ["permessage-deflate"],
            offer: WebSocketCompressionOffer(clientMaxWindowBits: 8)),
        Variant(
            id: "13.5 offered", kind: "json", serverArguments: [], negotiated: ["permessage-deflate"],
            offer: WebSocketCompressionOffer(clientMaxWindowBits: 9, clientNoContextTakeover: true)),
        Variant(
            id: "13.7 offered", kind: "json", serverArguments: [],
            negotiated: ["server_max_window_bits=9", "server_no_context_takeover"],
            offer: WebSocketCompressionOffer(serverMaxWindowBits: 9, serverNoContextTakeover: true))
    ]

    @Test(arguments: variants)
    func everyMessageComesBackWhole(_ variant: Variant) async throws {
        let peer = try await PythonPeer(script: "websocket_compression_peer.py") { ["\($0)"] + variant.serverArguments }
        defer { peer.shutdown() }
        var options = WebSocketOptions.default
        options.compression = variant.offer
        for (index, row) in Self.rowsToRun {
            let id = "\(variant.id).\(index + 1)"
            let socket = try await sharedConnect.webSocket(
                TestConnector(url: URL(string: "ws://127.0.0.1:\(peer.port)/")!), options: options)
            let extensions = socket.response.header("Sec-WebSocket-Extensions") ?? ""
            for parameter in variant.negotiated {
                #expect(extensions.contains(parameter), "\(id): \(extensions)")
            }
            // What the offer promised holds, whatever the answer said.
            let settled = try #require(socket.compression, "\(id): the server declined compression")
            if variant.offer.clientNoContextTakeover { #expect(settled.clientNoContextTakeover, "\(id)") }
            if let bits = variant.offer.clientMaxWindowBits { #expect(settled.clientMaxWindowBits <= bits, "\(id)") }
            if let bits = variant.offer.serverMaxWindowBits { #expect(settled.serverMaxWindowBits <= bits, "\(id)") }
            try await socket.send("series \(variant.kind) \(row.size) \(Self.messagesPerCase) \(row.fragment)")
            var verdict: String?
            for try await message in socket.messages {
                if case .text(let text) = message, text.hasPrefix("ok ") || text.hasPrefix("mismatch ") {
                    verdict = text
                    break
                }
                try await socket.send(message)
            }
            #expect(
                verdict?.hasPrefix("ok \(Self.messagesPerCase) ") == true,
                "\(id): \(verdict ?? "no verdict: closed with \(String(describing: socket.closeCode)) \(socket.closeReason ?? "")")"
            )
            try await socket.close()
        }
    }
}
