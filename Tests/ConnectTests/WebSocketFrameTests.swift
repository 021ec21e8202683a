import Testing

@testable import Connect

/// WebSocket framing without a socket: frames read from a server's bytes (RFC 6455 §5.7's
/// examples among them) however they are cut, what the reader refuses with which close code, a
/// client's masked frames, close payloads, and UTF-8 checked as it arrives.
@Suite("WebSocket frames")
struct WebSocketFrameTests {
    static func read(
        _ bytes: [UInt8], maximumPayload: Int = 1 << 20, allowsCompression: Bool = false, pieceSize: Int? = nil
    )
        throws(WebSocketProtocolViolation) -> [WebSocketFrame]
    {
        var reader = WebSocketFrameReader(maximumPayload: maximumPayload, allowsCompression: allowsCompression)
        var frames: [WebSocketFrame] = []
        var offset = 0
        repeat {
            let end = min(bytes.count, offset + (pieceSize ?? bytes.count))
            try reader.read(bytes: bytes[offset..<end]) { frames.append($0) }
            offset = end
        } while offset < bytes.count
        #expect(reader.pendingByteCount == 0)
        return frames
    }

    static let hello = Array("Hello".utf8)

    /// Bytes from a server and the frames they hold.
    static let servedFrames: [([UInt8], [WebSocketFrame])] = {
        let text = WebSocketFrame(opcode: .text, payload: hello)
        let ping = WebSocketFrame(opcode: .ping, payload: hello)
        let pong = WebSocketFrame(opcode: .pong, payload: [])
        let fragments = [
            WebSocketFrame(opcode: .text, payload: Array("Hel".utf8), isFinal: false),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8))
        ]
        let interleaved = [
            WebSocketFrame(opcode: .binary, payload: [7], isFinal: false), WebSocketFrame(opcode: .ping, payload: []),
            WebSocketFrame(opcode: .continuation, payload: [8])
        ]
        let short: [UInt8] = Array(repeating: 1, count: 256)
        let long: [UInt8] = Array(repeating: 2, count: 65536)
        let close = WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0x6F, 0x6B])
        let empty = WebSocketFrame(opcode: .binary, payload: [])
        var rows: [([UInt8], [WebSocketFrame])] = []
        // RFC 6455 §5.7: a single-frame unmasked text message; a fragmented one.
        rows.append(([0x81, 0x05] + hello, [text]))
        rows.append(([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F], fragments))
        // An unmasked ping and a pong; a ping between two fragments.
        rows.append(([0x89, 0x05] + hello + [0x8A, 0x00], [ping, pong]))
        rows.append(([0x02, 0x01, 0x07, 0x89, 0x00, 0x80, 0x01, 0x08], interleaved))
        // 256 bytes in a 16-bit length, 65,536 in a 64-bit one.
        rows.append(([0x82, 0x7E, 0x01, 0x00] + short, [WebSocketFrame(opcode: .binary, payload: short)]))
        rows.append(([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + long, [WebSocketFrame(opcode: .binary, payload: long)]))
        // A close frame with its code and reason, then an empty binary frame.
        rows.append(([0x88, 0x04, 0x03, 0xE8, 0x6F, 0x6B, 0x82, 0x00], [close, empty]))
        return rows
    }()

    /// Frames that stop the reading (`body` returning `false`) leave the rest unread; a frame
    /// cut between two reads is kept, the frames after it read from the kept bytes.
    @Test func readingStopsWhenAskedAndKeepsWhatIsCut() throws {
        var reader = WebSocketFrameReader(maximumPayload: 1 << 20)
        let bytes: [UInt8] = [0x82, 0x01, 0x01, 0x82, 0x01, 0x02, 0x82, 0x01, 0x03]
        var seen: [[UInt8]] = []
        try bytes.withUnsafeBytes { all in
            try reader.read(all) { _, payload in
                seen.append(Array(payload))
                return seen.count < 2
            }
        }
        #expect(seen == [[1], [2]])
        var later = WebSocketFrameReader(maximumPayload: 1 << 20)
        var payloads: [[UInt8]] = []
        try later.read(bytes: bytes[0..<4]) { payloads.append($0.payload) }
        #expect(payloads == [[1]] && later.pendingByteCount == 1)
        try later.read(bytes: bytes[4...]) { payloads.append($0.payload) }
        #expect(payloads == [[1], [2], [3]] && later.pendingByteCount == 0)
    }

    @Test(arguments: servedFrames)
    func framesAreReadHoweverTheBytesAreCut(bytes: [UInt8], frames: [WebSocketFrame]) throws {
        #expect(try Self.read(bytes) == frames)
        #expect(try Self.read(bytes, pieceSize: 1) == frames)
        #expect(try Self.read(bytes, pieceSize: 3) == frames)
    }

    @Test func aCompressedMessageCarriesRSV1OnItsFirstFrameOnly() throws {
        let bytes: [UInt8] = [0x41, 0x01, 0xAA, 0x80, 0x01, 0xBB]
        #expect(
            try Self.read(bytes, allowsCompression: true) == [
                WebSocketFrame(opcode: .text, payload: [0xAA], isFinal: false, isCompressed: true),
                WebSocketFrame(opcode: .continuation, payload: [0xBB])
            ])
    }

    @Test(
        arguments: [
            ([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58], 1002, "masked"),
            ([0xC1, 0x00], 1002, "reserved bits"),  // RSV1 without permessage-deflate
            ([0xA1, 0x00], 1002, "reserved bits"),  // RSV2
            ([0x91, 0x00], 1002, "reserved bits"),  // RSV3
            ([0x83, 0x00], 1002, "reserved opcode 0x3"),
            ([0x8B, 0x00], 1002, "reserved opcode 0xb"),
            ([0x09, 0x00], 1002, "fragmented"),
            ([0x89, 0x7E, 0x00, 0x7E], 1002, "at most 125"),
            ([0x88, 0x7E, 0x00, 0x7E], 1002, "at most 125"),
            ([0x82, 0x7E, 0x00, 0x05], 1002, "written in 16 bits"),
            ([0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 100], 1002, "written in 64 bits"),
            ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002, "most significant bit"),
            ([0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0], 1009, "more than the")
        ] as [([UInt8], UInt16, String)])
    func whatIsRefused(bytes: [UInt8], closeCode: UInt16, mentions: String) {
        do {
            _ = try Self.read(bytes, maximumPayload: 1 << 20)
            Issue.record("\(bytes) was read")
        } catch {
            #expect(error.closeCode == closeCode)
            #expect(error.reason.contains(mentions), "\(error.reason)")
        }
    }

    @Test func rsv1IsRefusedOnAContinuationOrControlFrameEvenWithCompression() {
        for bytes: [UInt8] in [[0x40, 0x00], [0xC9, 0x00]] {
            #expect(throws: WebSocketProtocolViolation.self) { try Self.read(bytes, allowsCompression: true) }
        }
    }

    @Test func aFrameOverTheMaximumIsRefusedBeforeItsPayloadArrives() throws {
        var reader = WebSocketFrameReader(maximumPayload: 1000)
        do {
            try reader.read(bytes: [0x82, 0x7E, 0x03, 0xE9]) { _ in }
            Issue.record("a frame of 1001 bytes was accepted")
        } catch {
            #expect(error == .tooBig("a frame carries 1001 bytes, more than the 1000 accepted"))
        }
    }

    // MARK: A client's frames

    /// RFC 6455 §5.7's masked "Hello", with its key.
    @Test func aClientsFrameIsMaskedAsTheRFCShows() {
        #expect(
            WebSocketFrame(opcode: .text, payload: Self.hello).encoded(maskingKey: 0x37FA_213D)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test(arguments: [(0, 6), (125, 6), (126, 8), (65535, 8), (65536, 14)])
    func lengthsTakeTheFewestBytes(count: Int, headerLength: Int) throws {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let frame = WebSocketFrame(opcode: .binary, payload: payload, isFinal: false, isCompressed: true)
        let bytes = frame.encoded(maskingKey: 0xDEAD_BEEF)
        #expect(bytes.count == headerLength + count)
        #expect(bytes[0] == 0x42)
        #expect(bytes[1] & 0x80 != 0)
        let key = Array(bytes[(headerLength - 4)..<headerLength])
        #expect(key == [0xDE, 0xAD, 0xBE, 0xEF])
        let unmasked = bytes[headerLength...].enumerated().map { $1 ^ key[$0 & 3] }
        #expect(unmasked == payload)
        // As a server would send it, unmasked, the reader reads the same frame back.
        var unmaskedFrame = Array(bytes[..<(headerLength - 4)])
        unmaskedFrame[1] &= 0x7F
        #expect(try Self.read(unmaskedFrame + unmasked, allowsCompression: true) == [frame])
    }

    // MARK: Close payloads

    @Test(
        arguments: [
            ([], WebSocketClosePayload(code: nil)),
            ([0x03, 0xE8], WebSocketClosePayload(code: 1000)),
            ([0x03, 0xE9] + Array("going away".utf8), WebSocketClosePayload(code: 1001, reason: "going away")),
            ([0x03, 0xF3], WebSocketClosePayload(code: 1011)),
            ([0x0B, 0xB8], WebSocketClosePayload(code: 3000)),
            ([0x13, 0x87] + Array("é".utf8), WebSocketClosePayload(code: 4999, reason: "é"))
        ] as [([UInt8], WebSocketClosePayload)])
    func closePayloads(bytes: [UInt8], payload: WebSocketClosePayload) throws {
        #expect(try WebSocketClosePayload(reading: bytes) == payload)
        #expect(payload.encoded == bytes)
    }

    @Test(
        arguments: [
            ([0x03] as [UInt8], 1002 as UInt16), ([0x03, 0xEC], 1002), ([0x03, 0xED], 1002), ([0x03, 0xEE], 1002),
            ([0x03, 0xF7], 1002), ([0x03, 0xE7], 1002), ([0x0B, 0xB7], 1002), ([0x13, 0x88], 1002),
            ([0x03, 0xE8, 0xC3], 1007), ([0x03, 0xE8, 0xED, 0xA0, 0x80], 1007)
        ] as [([UInt8], UInt16)])
    func closePayloadsThatAreRefused(bytes: [UInt8], closeCode: UInt16) {
        #expect(throws: WebSocketProtocolViolation.self) { try WebSocketClosePayload(reading: bytes) }
        #expect((try? WebSocketClosePayload(reading: bytes)) == nil)
        do {
            _ = try WebSocketClosePayload(reading: bytes)
        } catch {
            #expect(error.closeCode == closeCode)
        }
    }

    @Test func aLongReasonIsCutAtACharacterToFitAControlFrame() throws {
        let reason = String(repeating: "ü", count: 100)  // 200 bytes of UTF-8
        let bytes = WebSocketClosePayload(code: 1000, reason: reason).encoded
        #expect(bytes.count == 124)  // 2 + 61 two-byte characters
        #expect(try WebSocketClosePayload(reading: bytes).reason == String(repeating: "ü", count: 61))
    }

    // MARK: UTF-8 as it arrives

    @Test(arguments: ["", "plain", "é", "€ and 𝄞", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", "日本語のテキスト"])
    func validTextIsAcceptedCutAnywhere(text: String) {
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var validator = UTF8Validator()
            let acceptsFirstPart = validator.accepts(bytes[..<cut])
            #expect(acceptsFirstPart)
            let acceptsRest = validator.accepts(bytes[cut...])
            #expect(acceptsRest)
            #expect(validator.isComplete)
        }
    }

    @Test(
        arguments: [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xE2, 0x82, 0x41], [0xC3, 0xC3]
        ] as [[UInt8]])
    func invalidSequencesAreRefusedAtTheirFirstBadByte(bytes: [UInt8]) {
        var validator = UTF8Validator()
        let accepts = validator.accepts(bytes)
        #expect(!accepts)
        // Unicode agrees (String's own decoding replaces the sequence).
        #expect(String(validating: bytes, as: UTF8.self) == nil)
    }

    /// The validator reads ASCII eight bytes at a time from memory, and 32 one at a time after
    /// eight that are not: texts of ASCII runs of every length around its eight-byte steps, with
    /// characters of each length and bad bytes between them and runs past those 32 after them,
    /// cut in several places, get the answer Swift's own UTF-8 decoding gives, from memory (an
    /// array) and from a sequence without contiguous storage alike.
    @Test func asciiRunsOfEveryLengthAroundOtherBytesGetUnicodesAnswer() {
        let insertions: [[UInt8]] = [
            [], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0x80], [0xC3], [0xE2, 0x82],
            [0xED, 0xA0, 0x80], [0xFF], [0xC3, 0x41]
        ]
        for before in 0...17 {
            for insertion in insertions {
                for after in [0, 1, 7, 8, 9, 16, 33, 47] {
                    let bytes =
                        Array(repeating: UInt8(ascii: "a"), count: before) + insertion
                        + Array(repeating: UInt8(ascii: "z"), count: after)
                    let valid = String(validating: bytes, as: UTF8.self) != nil
                    for cut in Set([0, before / 2, before, before + insertion.count, bytes.count]) {
                        var inMemory = UTF8Validator()
                        let memoryAccepts = inMemory.accepts(bytes[..<cut]) && inMemory.accepts(bytes[cut...])
                        #expect((memoryAccepts && inMemory.isComplete) == valid, "\(bytes), cut at \(cut)")
                        var bytewise = UTF8Validator()
                        let bytewiseAccepts =
                            bytewise.accepts(bytes[..<cut].lazy.map { $0 })
                            && bytewise.accepts(bytes[cut...].lazy.map { $0 })
                        #expect(
                            (bytewiseAccepts && bytewise.isComplete) == valid, "\(bytes), cut at \(cut), byte by byte")
                    }
                }
            }
        }
    }

    @Test func aCharacterCutAtTheEndIsIncomplete() {
        var validator = UTF8Validator()
        let acceptsStart = validator.accepts([0xE2, 0x82])
        #expect(acceptsStart)
        #expect(!validator.isComplete)
        let acceptsLastByte = validator.accepts([0xAC])
        #expect(acceptsLastByte)
        #expect(validator.isComplete)
    }
}

extension WebSocketFrameReader {
    /// Reads `bytes` as ``read(_:_:)`` does, each whole frame given to `body` as a value.
    mutating func read(
        bytes: some Collection<UInt8>, _ body: (WebSocketFrame) -> Void
    ) throws(WebSocketProtocolViolation) {
        var outcome: Result<Void, WebSocketProtocolViolation> = .success(())
        Array(bytes).withUnsafeBytes { all in
            outcome = Result { () throws(WebSocketProtocolViolation) in
                try read(all) { header, payload in
                    body(WebSocketFrame(header, payload: payload))
                    return true
                }
            }
        }
        try outcome.get()
    }
}
