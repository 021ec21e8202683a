import Foundation
import Testing

@testable import Connect

/// Frames put together into messages, without a socket: fragments, control frames between them,
/// UTF-8 checked across fragments, the size limit, and the sequences RFC 6455 forbids.
@Suite("WebSocket messages")
struct WebSocketMessageTests {
    typealias Event = WebSocketMessageAssembler.Event

    static func frame(_ opcode: WebSocketFrame.Opcode, _ text: String, final: Bool = true) -> WebSocketFrame {
        WebSocketFrame(opcode: opcode, payload: Array(text.utf8), isFinal: final)
    }

    static func frame(_ opcode: WebSocketFrame.Opcode, bytes: [UInt8], final: Bool = true) -> WebSocketFrame {
        WebSocketFrame(opcode: opcode, payload: bytes, isFinal: final)
    }

    /// The events of `frames` in order, `nil` for the fragments that complete nothing, then the
    /// violation that stopped them, if any.
    static func events(
        _ frames: [WebSocketFrame], maximumMessageSize: Int = 1 << 20
    )
        -> ([Event?], WebSocketProtocolViolation?)
    {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: maximumMessageSize)
        var events: [Event?] = []
        for frame in frames {
            do {
                events.append(try assembler.take(frame))
            } catch {
                return (events, error)
            }
        }
        return (events, nil)
    }

    static let sequences: [(String, [WebSocketFrame], [Event?])] = [
        ("one text frame", [frame(.text, "hello")], [.message(.text("hello"))]),
        ("one binary frame", [frame(.binary, bytes: [0, 1, 2])], [.message(.binary(Data([0, 1, 2])))]),
        (
            "three fragments",
            [frame(.text, "he", final: false), frame(.continuation, "l", final: false), frame(.continuation, "lo")],
            [nil, nil, .message(.text("hello"))]
        ),
        (
            "a ping and a pong between fragments",
            [
                frame(.binary, bytes: [1], final: false), frame(.ping, "p"), frame(.pong, ""),
                frame(.continuation, bytes: [2])
            ],
            [nil, .ping(Array("p".utf8)), .pong([]), .message(.binary(Data([1, 2])))]
        ),
        (
            "a character cut between fragments",
            [frame(.text, bytes: [0x63, 0x61, 0x66, 0xC3], final: false), frame(.continuation, bytes: [0xA9])],
            [nil, .message(.text("café"))]
        ),
        ("an empty text message", [frame(.text, "")], [.message(.text(""))]),
        (
            "a close with its code, then nothing more is assembled",
            [frame(.close, bytes: [0x03, 0xE8] + Array("bye".utf8))],
            [.close(WebSocketClosePayload(code: 1000, reason: "bye"))]
        ),
        ("a close without a code", [frame(.close, bytes: [])], [.close(WebSocketClosePayload(code: nil))]),
        (
            "two messages in a row", [frame(.text, "a"), frame(.binary, bytes: [9])],
            [.message(.text("a")), .message(.binary(Data([9])))]
        )
    ]

    @Test(arguments: sequences)
    func messages(name: String, frames: [WebSocketFrame], expected: [Event?]) {
        let (events, violation) = Self.events(frames)
        #expect(events == expected, "\(name)")
        #expect(violation == nil, "\(name)")
    }

    static let refused: [(String, [WebSocketFrame], UInt16, String)] = [
        ("a continuation with no message", [frame(.continuation, "x")], 1002, "continues no message"),
        (
            "a new message inside one", [frame(.text, "a", final: false), frame(.binary, bytes: [1])], 1002,
            "before the last one ended"
        ),
        ("text that is not UTF-8", [frame(.text, bytes: [0x61, 0xFF])], 1007, "not UTF-8"),
        // Refused at the fragment that breaks it, before the message ends.
        ("a surrogate in a first fragment", [frame(.text, bytes: [0xED, 0xA0], final: false)], 1007, "not UTF-8"),
        ("text ending inside a character", [frame(.text, bytes: [0xE2, 0x82])], 1007, "inside a character"),
        (
            "fragments over the size",
            [
                frame(.binary, bytes: Array(repeating: 0, count: 6), final: false),
                frame(.continuation, bytes: Array(repeating: 0, count: 5))
            ], 1009, "more than 10 bytes"
        ),
        ("a close frame with one byte", [frame(.close, bytes: [3])], 1002, "one byte"),
        ("a close frame with code 1005", [frame(.close, bytes: [0x03, 0xED])], 1002, "1005")
    ]

    @Test(arguments: refused)
    func sequencesThatAreRefused(name: String, frames: [WebSocketFrame], closeCode: UInt16, mentions: String) {
        let (_, violation) = Self.events(frames, maximumMessageSize: 10)
        #expect(violation?.closeCode == closeCode, "\(name)")
        #expect(violation?.reason.contains(mentions) == true, "\(name): \(String(describing: violation))")
    }

    @Test func aMessageOfExactlyTheMaximumIsAccepted() {
        let (events, violation) = Self.events(
            [Self.frame(.binary, bytes: [1, 2, 3, 4], final: false), Self.frame(.continuation, bytes: [5, 6])],
            maximumMessageSize: 6)
        #expect(violation == nil)
        #expect(events == [nil, .message(.binary(Data([1, 2, 3, 4, 5, 6])))])
    }

    /// `frames` with each payload arriving a byte at a time: the beginning of each frame is
    /// checked after every byte, then the whole frame taken. The events, then the violation that
    /// stopped them, with the frame it came in and how many of its payload's bytes had arrived
    /// (its whole payload when it came from the whole frame).
    static func eventsByteByByte(
        _ frames: [WebSocketFrame]
    ) -> ([Event?], (violation: WebSocketProtocolViolation, frame: Int, bytes: Int)?) {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1 << 20)
        var events: [Event?] = []
        for (index, frame) in frames.enumerated() {
            for count in 1..<max(1, frame.payload.count) {
                let checked = frame.payload.withUnsafeBytes { payload in
                    Result { () throws(WebSocketProtocolViolation) in
                        try assembler.checkBeginning(
                            of: frame.header, payloadSoFar: UnsafeRawBufferPointer(rebasing: payload[..<count]))
                    }
                }
                if case .failure(let violation) = checked { return (events, (violation, index, count)) }
            }
            do throws(WebSocketProtocolViolation) {
                events.append(try assembler.take(frame))
            } catch {
                return (events, (error, index, frame.payload.count))
            }
        }
        return (events, nil)
    }

    @Test(arguments: sequences)
    func framesArrivingByteByByteMakeTheSameMessages(name: String, frames: [WebSocketFrame], expected: [Event?]) {
        let (events, failure) = Self.eventsByteByByte(frames)
        #expect(failure == nil, "\(name)")
        #expect(events == expected, "\(name)")
    }

    static let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]

    /// What a frame's beginning already breaks fails there, before the frame is whole: the
    /// frame, how many of its payload's bytes had come, and the close code.
    static let failingEarly: [(String, [WebSocketFrame], Int, Int, UInt16)] = [
        (
            "a text frame whose 13th byte breaks UTF-8 (U+110000)",
            [frame(.text, bytes: kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8))], 0, 13, 1007
        ),
        (
            "a continuation frame whose second byte breaks UTF-8",
            [frame(.text, "ab", final: false), frame(.continuation, bytes: [0x61, 0xFF, 0x62])], 1, 2, 1007
        ),
        (
            "a character cut between fragments and broken in the next",
            [frame(.text, bytes: [0x61, 0xE2], final: false), frame(.continuation, bytes: [0x82, 0x41, 0x41])], 1, 2,
            1007
        ),
        (
            "a text frame before the last message ended",
            [frame(.text, "ab", final: false), frame(.text, "cd")], 1, 1, 1002
        ),
        ("a continuation frame that continues no message", [frame(.continuation, "cd")], 0, 1, 1002)
    ]

    @Test(arguments: failingEarly)
    func whatABeginningBreaksFailsBeforeTheFrameEnds(
        name: String, frames: [WebSocketFrame], frame: Int, bytes: Int, closeCode: UInt16
    ) {
        let (_, failure) = Self.eventsByteByByte(frames)
        #expect(failure?.violation.closeCode == closeCode, "\(name)")
        #expect(failure?.frame == frame && failure?.bytes == bytes, "\(name): \(String(describing: failure))")
    }

    @Test func binaryPayloadsAreNotReadAsText() {
        let (events, failure) = Self.eventsByteByByte([Self.frame(.binary, bytes: [0xFF, 0xFE, 0xC0])])
        #expect(failure == nil)
        #expect(events == [.message(.binary(Data([0xFF, 0xFE, 0xC0])))])
    }
}
