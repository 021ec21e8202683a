import ConnectTestServer
import Foundation

@testable import Connect

/// The Autobahn|Testsuite's client cases, sections 1 to 5 and 7: framing, pings and pongs,
/// reserved bits, reserved opcodes, fragmentation, and the closing handshake. Section 6 (UTF-8)
/// is in `AutobahnCases+UTF8.swift`, section 9 (large and many messages) in
/// `AutobahnCases+Limits.swift`.
///
/// Where Autobahn accepts more than one outcome ("non-strict", "informational"), the table holds
/// the one Connect gives; where Autobahn's server writes one octet at a time or pauses, so does
/// the scripted server.
enum AutobahnCases {
    static let hello = "Hello, world!"

    static var all: [AutobahnCase] {
        framing + pings + reservedBits + reservedOpcodes + fragmentation + utf8 + closing + limits
    }

    // MARK: 1 Framing

    static let framingSizes = [0, 125, 126, 127, 128, 65_535, 65_536]

    static var framing: [AutobahnCase] {
        var cases: [AutobahnCase] = []
        for (group, opcode) in [(1, UInt8(0x1)), (2, UInt8(0x2))] {
            let kind = opcode == 0x1 ? "text" : "binary"
            @Sendable func message(_ count: Int) -> WebSocketMessage {
                opcode == 0x1
                    ? .text(String(repeating: "*", count: count)) : .binary(Data(repeating: 0xFE, count: count))
            }
            @Sendable func payload(_ count: Int) -> [UInt8] {
                Array(repeating: opcode == 0x1 ? 0x2A : 0xFE, count: count)
            }
            for (index, count) in framingSizes.enumerated() {
                cases.append(
                    AutobahnCase(
                        "1.\(group).\(index + 1)", "a \(kind) message of \(count) bytes", delivers: [message(count)]
                    ) {
                        [.send(ServerFrame.make(opcode, payload(count)))]
                    })
            }
            cases.append(
                AutobahnCase(
                    "1.\(group).8", "a \(kind) message of 65536 bytes in writes of 997", delivers: [message(65_536)]
                ) {
                    ServerFrame.chopped(ServerFrame.make(opcode, payload(65_536)), 997)
                })
        }
        return cases
    }

    // MARK: 2 Pings and pongs

    static var pings: [AutobahnCase] {
        let binary: [UInt8] = [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF]
        let tenPings = (0..<10).map { Array("payload-\($0)".utf8) }
        return [
            AutobahnCase("2.1", "a ping without payload", pongs: [[]]) { [.send(ServerFrame.make(0x9))] },
            AutobahnCase("2.2", "a ping with a short text payload", pongs: [Array(hello.utf8)]) {
                [.send(ServerFrame.make(0x9, hello))]
            },
            AutobahnCase("2.3", "a ping with a binary payload", pongs: [binary]) {
                [.send(ServerFrame.make(0x9, binary))]
            },
            AutobahnCase("2.4", "a ping of 125 bytes", pongs: [Array(repeating: 0xFE, count: 125)]) {
                [.send(ServerFrame.make(0x9, Array(repeating: 0xFE, count: 125)))]
            },
            AutobahnCase("2.5", "a ping of 126 bytes", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x9, Array(repeating: 0xFE, count: 126)))]
            },
            AutobahnCase("2.6", "a ping of 125 bytes one byte at a time", pongs: [Array(repeating: 0xFE, count: 125)]) {
                ServerFrame.chopped(ServerFrame.make(0x9, Array(repeating: 0xFE, count: 125)), 1)
            },
            AutobahnCase("2.7", "an unsolicited pong without payload", ending: .echoesClose(1000)) {
                [.send(ServerFrame.make(0xA)), .send(ServerFrame.close(1000))]
            },
            AutobahnCase("2.8", "an unsolicited pong with payload", ending: .echoesClose(1000)) {
                [.send(ServerFrame.make(0xA, "unsolicited pong payload")), .send(ServerFrame.close(1000))]
            },
            AutobahnCase("2.9", "an unsolicited pong, then a ping", pongs: [Array("ping payload".utf8)]) {
                [.send(ServerFrame.make(0xA, "unsolicited pong payload")), .send(ServerFrame.make(0x9, "ping payload"))]
            },
            AutobahnCase("2.10", "ten pings with payloads", pongs: tenPings) {
                tenPings.map { .send(ServerFrame.make(0x9, $0)) }
            },
            AutobahnCase("2.11", "ten pings one byte at a time", pongs: tenPings) {
                tenPings.flatMap { ServerFrame.chopped(ServerFrame.make(0x9, $0), 1) }
            }
        ]
    }

    // MARK: 3 Reserved bits

    static var reservedBits: [AutobahnCase] {
        let binary: [UInt8] = [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF]
        /// A good message, the same with `rsv`, then a ping that must not be answered.
        @Sendable func goodThenBad(_ rsv: UInt8, chop: Int?) -> [AutobahnCase.Step] {
            let frames = [ServerFrame.make(0x1, hello), ServerFrame.make(0x1, hello, rsv: rsv), ServerFrame.make(0x9)]
            guard let chop else { return frames.map { .send($0) } }
            return frames.flatMap { ServerFrame.chopped($0, chop) }
        }
        return [
            AutobahnCase("3.1", "a text message with RSV = 1", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x1, hello, rsv: 1))]
            },
            AutobahnCase(
                "3.2", "a text message, then one with RSV = 2, then a ping", delivers: [.text(hello)],
                ending: .fails(1002)
            ) {
                [.send(ServerFrame.make(0x1, hello) + ServerFrame.make(0x1, hello, rsv: 2) + ServerFrame.make(0x9))]
            },
            AutobahnCase("3.3", "as 3.2 with RSV = 3, frame by frame", delivers: [.text(hello)], ending: .fails(1002)) {
                goodThenBad(3, chop: nil)
            },
            AutobahnCase(
                "3.4", "as 3.2 with RSV = 4, one byte at a time", delivers: [.text(hello)], ending: .fails(1002)
            ) {
                goodThenBad(4, chop: 1)
            },
            AutobahnCase("3.5", "a binary message with RSV = 5", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x2, binary, rsv: 5))]
            },
            AutobahnCase("3.6", "a ping with RSV = 6", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x9, hello, rsv: 6))]
            },
            AutobahnCase("3.7", "a close with RSV = 7", ending: .fails(1002)) { [.send(ServerFrame.make(0x8, rsv: 7))] }
        ]
    }

    // MARK: 4 Reserved opcodes

    static var reservedOpcodes: [AutobahnCase] {
        var cases: [AutobahnCase] = []
        for (group, opcodes) in [(1, [3, 4, 5, 6, 7] as [UInt8]), (2, [11, 12, 13, 14, 15])] {
            let kind = group == 1 ? "non-control" : "control"
            cases.append(
                AutobahnCase(
                    "4.\(group).1", "a frame with the reserved \(kind) opcode \(opcodes[0])", ending: .fails(1002)
                ) {
                    [.send(ServerFrame.make(opcodes[0]))]
                })
            cases.append(
                AutobahnCase(
                    "4.\(group).2", "a frame with the reserved opcode \(opcodes[1]) and a payload", ending: .fails(1002)
                ) {
                    [.send(ServerFrame.make(opcodes[1], "reserved opcode payload"))]
                })
            cases.append(
                AutobahnCase(
                    "4.\(group).3", "a message, a frame with opcode \(opcodes[2]), a ping", delivers: [.text(hello)],
                    ending: .fails(1002)
                ) {
                    [
                        .send(ServerFrame.make(0x1, hello)), .send(ServerFrame.make(opcodes[2])),
                        .send(ServerFrame.make(0x9))
                    ]
                })
            cases.append(
                AutobahnCase(
                    "4.\(group).4", "a message, a frame with opcode \(opcodes[3]) and a payload, a ping",
                    delivers: [.text(hello)], ending: .fails(1002)
                ) {
                    [
                        .send(ServerFrame.make(0x1, hello)), .send(ServerFrame.make(opcodes[3], hello)),
                        .send(ServerFrame.make(0x9))
                    ]
                })
            cases.append(
                AutobahnCase(
                    "4.\(group).5", "as 4.\(group).4 with opcode \(opcodes[4]), one byte at a time",
                    delivers: [.text(hello)], ending: .fails(1002)
                ) {
                    [ServerFrame.make(0x1, hello), ServerFrame.make(opcodes[4], hello), ServerFrame.make(0x9)].flatMap {
                        ServerFrame.chopped($0, 1)
                    }
                })
        }
        return cases
    }

    // MARK: 5 Fragmentation

    static var fragmentation: [AutobahnCase] {
        let fragments = ["fragment1", "fragment2", "fragment3", "fragment4", "fragment5"]
        let two = ServerFrame.make(0x1, fragments[0], fin: false) + ServerFrame.make(0x0, fragments[1])
        let withPing = [
            ServerFrame.make(0x1, fragments[0], fin: false), ServerFrame.make(0x9, "ping payload"),
            ServerFrame.make(0x0, fragments[1])
        ]
        let joined = WebSocketMessage.text(fragments[0] + fragments[1])
        let pong = [Array("ping payload".utf8)]
        let nothingToContinue: @Sendable (Bool) -> [Data] = { fin in
            [ServerFrame.make(0x0, "non-continuation payload", fin: fin), ServerFrame.make(0x1, hello)]
        }
        @Sendable func writes(_ frames: [Data], chop: Int?) -> [AutobahnCase.Step] {
            guard let chop else { return frames.map { .send($0) } }
            return frames.flatMap { ServerFrame.chopped($0, chop) }
        }
        @Sendable func fivePieces(frameByFrame: Bool) -> [AutobahnCase.Step] {
            let first = [
                ServerFrame.make(0x1, fragments[0], fin: false), ServerFrame.make(0x0, fragments[1], fin: false),
                ServerFrame.make(0x9, "pongme 1!")
            ]
            let second = [
                ServerFrame.make(0x0, fragments[2], fin: false), ServerFrame.make(0x0, fragments[3], fin: false),
                ServerFrame.make(0x9, "pongme 2!"), ServerFrame.make(0x0, fragments[4])
            ]
            let send = { (frames: [Data]) -> [AutobahnCase.Step] in
                frameByFrame ? frames.map { AutobahnCase.Step.send($0) } : [.send(frames.reduce(Data(), +))]
            }
            return send(first) + [.pause(.seconds(1))] + send(second)
        }
        let fiveJoined = WebSocketMessage.text(fragments.joined())
        let twoPongs = [Array("pongme 1!".utf8), Array("pongme 2!".utf8)]
        return [
            AutobahnCase("5.1", "a ping in two fragments", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x9, fragments[0], fin: false) + ServerFrame.make(0x0, fragments[1]))]
            },
            AutobahnCase("5.2", "a pong in two fragments", ending: .fails(1002)) {
                [.send(ServerFrame.make(0xA, fragments[0], fin: false) + ServerFrame.make(0x0, fragments[1]))]
            },
            AutobahnCase("5.3", "a text message in two fragments", delivers: [joined]) { [.send(two)] },
            AutobahnCase("5.4", "as 5.3, frame by frame", delivers: [joined]) {
                writes(
                    [ServerFrame.make(0x1, fragments[0], fin: false), ServerFrame.make(0x0, fragments[1])], chop: nil)
            },
            AutobahnCase("5.5", "as 5.3, one byte at a time", delivers: [joined]) { ServerFrame.chopped(two, 1) },
            AutobahnCase("5.6", "two fragments with a ping between", delivers: [joined], pongs: pong) {
                [.send(withPing.reduce(Data(), +))]
            },
            AutobahnCase("5.7", "as 5.6, frame by frame", delivers: [joined], pongs: pong) {
                writes(withPing, chop: nil)
            },
            AutobahnCase("5.8", "as 5.6, one byte at a time", delivers: [joined], pongs: pong) {
                writes(withPing, chop: 1)
            },
            AutobahnCase("5.9", "a final continuation with nothing to continue, then a message", ending: .fails(1002)) {
                [.send(nothingToContinue(true).reduce(Data(), +))]
            },
            AutobahnCase("5.10", "as 5.9, frame by frame", ending: .fails(1002)) {
                writes(nothingToContinue(true), chop: nil)
            },
            AutobahnCase("5.11", "as 5.9, one byte at a time", ending: .fails(1002)) {
                writes(nothingToContinue(true), chop: 1)
            },
            AutobahnCase(
                "5.12", "a continuation (not final) with nothing to continue, then a message", ending: .fails(1002)
            ) {
                [.send(nothingToContinue(false).reduce(Data(), +))]
            },
            AutobahnCase("5.13", "as 5.12, frame by frame", ending: .fails(1002)) {
                writes(nothingToContinue(false), chop: nil)
            },
            AutobahnCase("5.14", "as 5.12, one byte at a time", ending: .fails(1002)) {
                writes(nothingToContinue(false), chop: 1)
            },
            AutobahnCase(
                "5.15", "a message in two fragments, then a continuation of nothing", delivers: [joined],
                ending: .fails(1002)
            ) {
                [
                    .send(
                        two + ServerFrame.make(0x0, fragments[2], fin: false) + ServerFrame.make(0x1, fragments[3]))
                ]
            },
            AutobahnCase("5.16", "continuations of nothing around a fragmented message, twice", ending: .fails(1002)) {
                let round =
                    ServerFrame.make(0x0, fragments[0], fin: false) + ServerFrame.make(0x1, fragments[1], fin: false)
                    + ServerFrame.make(0x0, fragments[2])
                return [.send(round + round)]
            },
            AutobahnCase("5.17", "as 5.16 with final continuations of nothing", ending: .fails(1002)) {
                let round =
                    ServerFrame.make(0x0, fragments[0]) + ServerFrame.make(0x1, fragments[1], fin: false)
                    + ServerFrame.make(0x0, fragments[2])
                return [.send(round + round)]
            },
            AutobahnCase("5.18", "a text fragment followed by a new text message", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x1, fragments[0], fin: false) + ServerFrame.make(0x1, fragments[1]))]
            },
            AutobahnCase(
                "5.19", "five fragments with two pings between, a second apart", delivers: [fiveJoined], pongs: twoPongs
            ) {
                fivePieces(frameByFrame: false)
            },
            AutobahnCase("5.20", "as 5.19, frame by frame", delivers: [fiveJoined], pongs: twoPongs) {
                fivePieces(frameByFrame: true)
            }
        ]
    }

    // MARK: 7 Closing

    /// The valid close codes of 7.7 and the invalid ones of 7.9.
    static let validCloseCodes: [UInt16] = [
        1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999
    ]
    static let invalidCloseCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999]

    static var closing: [AutobahnCase] {
        let helloWorld = "Hello World!"
        let notUTF8: [UInt8] = [
            0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74,
            0x65, 0x64
        ]
        var cases = [
            AutobahnCase("7.1.1", "a message, then a close", delivers: [.text(helloWorld)], ending: .echoesClose(1000))
            {
                [.send(ServerFrame.make(0x1, helloWorld)), .send(ServerFrame.close(1000))]
            },
            AutobahnCase("7.1.2", "two closes", ending: .echoesClose(1000)) {
                [.send(ServerFrame.close(1000) + ServerFrame.make(0x8))]
            },
            AutobahnCase("7.1.3", "a ping after the close", ending: .echoesClose(1000)) {
                [.send(ServerFrame.close(1000) + ServerFrame.make(0x9))]
            },
            AutobahnCase("7.1.4", "a message after the close", ending: .echoesClose(1000)) {
                [.send(ServerFrame.close(1000) + ServerFrame.make(0x1, helloWorld))]
            },
            AutobahnCase("7.1.5", "a fragment, a close, then the last fragment", ending: .echoesClose(1000)) {
                [
                    .send(
                        ServerFrame.make(0x1, "fragment1", fin: false) + ServerFrame.close(1000)
                            + ServerFrame.make(0x0, "fragment2"))
                ]
            },
            AutobahnCase(
                "7.1.6", "a 256 KiB message, a message, a close, a ping",
                delivers: [.filled("BAsd7&jh23", 262_144), .text(helloWorld)], ending: .echoesClose(1000)
            ) {
                [
                    .send(
                        ServerFrame.make(0x1, ServerFrame.filled("BAsd7&jh23", 262_144))
                            + ServerFrame.make(0x1, helloWorld)
                            + ServerFrame.close(1000) + ServerFrame.make(0x9))
                ]
            },
            AutobahnCase("7.3.1", "a close without payload", ending: .echoesClose(nil)) {
                [.send(ServerFrame.make(0x8))]
            },
            AutobahnCase("7.3.2", "a close with a one-byte payload", ending: .fails(1002)) {
                [.send(ServerFrame.make(0x8, "a"))]
            },
            AutobahnCase("7.3.3", "a close with a code", ending: .echoesClose(1000)) {
                [.send(ServerFrame.close(1000))]
            },
            AutobahnCase("7.3.4", "a close with a code and a reason", ending: .echoesClose(1000)) {
                [.send(ServerFrame.close(1000, reason: Array(helloWorld.utf8)))]
            },
            AutobahnCase("7.3.5", "a close with a reason of 123 bytes", ending: .echoesClose(1000)) {
                [.send(ServerFrame.close(1000, reason: Array(repeating: 0x2A, count: 123)))]
            },
            AutobahnCase("7.3.6", "a close with a reason of 124 bytes (a payload of 126)", ending: .fails(1002)) {
                [.send(ServerFrame.close(1000, reason: Array(repeating: 0x2A, count: 124)))]
            },
            AutobahnCase("7.5.1", "a close whose reason is not UTF-8", ending: .fails(1007)) {
                [.send(ServerFrame.close(1000, reason: notUTF8))]
            }
        ]
        for (index, code) in validCloseCodes.enumerated() {
            cases.append(
                AutobahnCase("7.7.\(index + 1)", "a close with the valid code \(code)", ending: .echoesClose(code)) {
                    [.send(ServerFrame.close(code))]
                })
        }
        for (index, code) in invalidCloseCodes.enumerated() {
            cases.append(
                AutobahnCase("7.9.\(index + 1)", "a close with the invalid code \(code)", ending: .fails(1002)) {
                    [.send(ServerFrame.close(code))]
                })
        }
        for (index, code) in [UInt16(5000), 65_535].enumerated() {
            // Informational in Autobahn (RFC 6455 leaves it open); Connect fails the connection.
            cases.append(
                AutobahnCase("7.13.\(index + 1)", "a close with the code \(code)", ending: .fails(1002)) {
                    [.send(ServerFrame.close(code))]
                })
        }
        return cases
    }
}
