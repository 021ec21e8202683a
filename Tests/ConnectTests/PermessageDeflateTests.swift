import Foundation
import Testing
import SharedTestSupport

@testable import Connect

/// permessage-deflate (RFC 7692) without a socket: the RFC's own examples, context takeover
/// and its absence, and the limits on what a server's message may inflate to.
struct PermessageDeflateTests {
    static func codec(_ configure: (inout DeflateParameters) -> Void = { _ in }) throws -> PermessageDeflate {
        var parameters = DeflateParameters()
        configure(&parameters)
        return try #require(PermessageDeflate(parameters: parameters))
    }

    @Test func readsTheRFCsExamples() throws {
        // §7.2.3.1: "Hello" in one compressed block; §7.2.3.2: a second "Hello" sharing the window.
        let codec = try Self.codec()
        #expect(try codec.decompress([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100) == Array("Hello".utf8))
        #expect(try codec.decompress([0xF2, 0x00, 0x11, 0x00, 0x00], limit: 100) == Array("Hello".utf8))
        // §7.2.3.3: an uncompressed (stored) block; §7.2.3.4: a final block (BFINAL set).
        let fresh = try Self.codec()
        #expect(
            try fresh.decompress([0x00, 0x05, 0x00, 0xFA, 0xFF] + Array("Hello".utf8) + [0x00], limit: 100)
                == Array("Hello".utf8))
        #expect(try fresh.decompress([0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100) == Array("Hello".utf8))
        #expect(try fresh.decompress([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100) == Array("Hello".utf8))
    }

    @Test(arguments: [false, true])
    func whatOneSideCompressesTheOtherInflates(noContextTakeover: Bool) throws {
        // The client's compressor against an inflater that reads as a server would.
        let sender = try Self.codec { $0.clientNoContextTakeover = noContextTakeover }
        let receiver = try Self.codec { $0.serverNoContextTakeover = noContextTakeover }
        let message = Array(String(repeating: #"{"user":"ada","text":"hello, hello"}"#, count: 40).utf8)
        var sizes: [Int] = []
        for _ in 0..<3 {
            let compressed = try #require(sender.compress(message))
            sizes.append(compressed.count)
            #expect(Array(compressed.suffix(4)) != PermessageDeflate.tail)
            #expect(try receiver.decompress(compressed, limit: 1 << 20) == message)
        }
        // With the window kept, a repeated message costs a few bytes; without, the same each time.
        if noContextTakeover {
            #expect(Set(sizes).count == 1)
        } else {
            #expect(sizes[1] < sizes[0])
        }
    }

    @Test func aMessageThatWouldNotShrinkGoesOutAsItIsWhenEachMessageStandsAlone() throws {
        var generator = SeededGenerator(state: 7)
        let noise = (0..<200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(try Self.codec { $0.clientNoContextTakeover = true }.compress(noise) == nil)
        // With the window kept, zlib has read it: it goes out compressed, a few bytes larger.
        let kept = try #require(try Self.codec().compress(noise))
        #expect(kept.count > noise.count && kept.count <= noise.count + 10)
        #expect(try Self.codec().decompress(kept, limit: 1_000) == noise)
        #expect(try Self.codec().compress([]) == nil)
        // zlib cannot keep to a 256-byte window: nothing is compressed then.
        #expect(try Self.codec { $0.clientMaxWindowBits = 8 }.compress(Array(repeating: 1, count: 1_000)) == nil)
    }

    /// Found by Autobahn's section 12 against Python's `websockets`: a short message that did not
    /// shrink went out as it was while zlib's window kept it, and the next message pointed back
    /// into bytes the server had never inflated.
    @Test(arguments: [false, true])
    func theServersWindowHoldsWhatTheClientsPointsInto(noContextTakeover: Bool) throws {
        let sender = try Self.codec { $0.clientNoContextTakeover = noContextTakeover }
        let receiver = try Self.codec { $0.serverNoContextTakeover = noContextTakeover }
        let messages = [#"{"id":1,"u":"x"}"#, #"{"id":1,"u":"x"} {"id":1,"u":"x"}"#, "ok", #"{"id":1,"u":"x"}"#]
        for message in messages.map({ Array($0.utf8) }) {
            guard let compressed = sender.compress(message) else { continue }
            #expect(try receiver.decompress(compressed, limit: 1_000) == message)
        }
    }

    @Test func aServersMessageIsRefusedPastTheLimitOrWhenCorrupt() throws {
        let sender = try Self.codec()
        let bomb = try #require(sender.compress(Array(repeating: 0, count: 1 << 20)))
        #expect(bomb.count < 2_000)
        #expect(throws: PermessageDeflate.Failure.tooBig) { try Self.codec().decompress(bomb, limit: 100_000) }
        #expect(throws: PermessageDeflate.Failure.self) { try Self.codec().decompress([0xFF, 0xFF, 0xFF], limit: 100) }
    }

    @Test func theAssemblerInflatesAndChecksTextOnceInflated() throws {
        let sender = try Self.codec()
        let compressed = try #require(sender.compress(Array(String(repeating: "ça va? ", count: 50).utf8)))
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1 << 20, compression: try Self.codec())
        let half = compressed.count / 2
        #expect(
            try assembler.take(
                WebSocketFrame(opcode: .text, payload: Array(compressed[..<half]), isFinal: false, isCompressed: true))
                == nil)
        #expect(
            try assembler.take(WebSocketFrame(opcode: .continuation, payload: Array(compressed[half...])))
                == .message(.text(String(repeating: "ça va? ", count: 50))))
        let notText = try #require(try Self.codec().compress(Array(repeating: 0xC3, count: 64)))
        var strict = WebSocketMessageAssembler(maximumMessageSize: 1 << 20, compression: try Self.codec())
        #expect(throws: WebSocketProtocolViolation.self) {
            try strict.take(WebSocketFrame(opcode: .text, payload: notText, isCompressed: true))
        }
    }
}
