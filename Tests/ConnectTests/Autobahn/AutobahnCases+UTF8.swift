import ConnectTestServer
import Foundation

@testable import Connect

/// Section 6: UTF-8 in text messages. 6.1 to 6.4 are fragmented and fail-fast cases; 6.5 to
/// 6.23 send each sequence of Markus Kuhn's UTF-8 decoder test (as Autobahn groups it) as one
/// text message: a valid one comes back, an invalid one fails the connection with 1007.
extension AutobahnCases {
    static let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]

    static var utf8: [AutobahnCase] {
        let greeting = "Hello-µ@ßöäüàá-UTF-8!!"
        let invalid = kosme + [0xED, 0xA0, 0x80] + Array("edited".utf8)
        let failFast = kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8)
        let kosmeText = String(decoding: kosme, as: UTF8.self)
        var cases = [
            AutobahnCase("6.1.1", "an empty text message", delivers: [.text("")]) { [.send(ServerFrame.make(0x1))] },
            AutobahnCase("6.1.2", "an empty text message in three empty fragments", delivers: [.text("")]) {
                [.send(ServerFrame.make(0x1, fin: false) + ServerFrame.make(0x0, fin: false) + ServerFrame.make(0x0))]
            },
            AutobahnCase("6.1.3", "empty fragments around one with text", delivers: [.text("middle frame payload")]) {
                [
                    .send(
                        ServerFrame.make(0x1, fin: false) + ServerFrame.make(0x0, "middle frame payload", fin: false)
                            + ServerFrame.make(0x0))
                ]
            },
            AutobahnCase("6.2.1", "valid UTF-8 in one frame", delivers: [.text(greeting)]) {
                [.send(ServerFrame.make(0x1, greeting))]
            },
            AutobahnCase("6.2.2", "valid UTF-8 in two fragments split between characters", delivers: [.text(greeting)])
            {
                [.send(ServerFrame.make(0x1, "Hello-µ@ßöä", fin: false) + ServerFrame.make(0x0, "üàá-UTF-8!!"))]
            },
            AutobahnCase("6.2.3", "valid UTF-8 in fragments of one byte", delivers: [.text(greeting)]) {
                [.send(ServerFrame.message(0x1, Array(greeting.utf8), fragmentSize: 1))]
            },
            AutobahnCase("6.2.4", "κόσμε in fragments of one byte", delivers: [.text(kosmeText)]) {
                [.send(ServerFrame.message(0x1, kosme, fragmentSize: 1))]
            },
            AutobahnCase("6.3.1", "invalid UTF-8 in one frame", ending: .fails(1007)) {
                [.send(ServerFrame.make(0x1, invalid))]
            },
            AutobahnCase("6.3.2", "invalid UTF-8 in fragments of one byte", ending: .fails(1007)) {
                [.send(ServerFrame.message(0x1, invalid, fragmentSize: 1))]
            },
            // 6.4: the client must fail at the piece that breaks UTF-8, before the next arrives.
            AutobahnCase("6.4.1", "fail fast: the second of three fragments is invalid", ending: .fails(1007)) {
                [
                    .send(ServerFrame.make(0x1, kosme, fin: false)), .pause(.seconds(1)),
                    .send(ServerFrame.make(0x0, [0xF4, 0x90, 0x80, 0x80], fin: false)), .pause(.seconds(1)),
                    .send(ServerFrame.make(0x0, "edited"))
                ]
            },
            AutobahnCase("6.4.2", "fail fast: a fragment of one byte makes it invalid", ending: .fails(1007)) {
                [
                    .send(ServerFrame.make(0x1, Array(failFast[..<12]), fin: false)), .pause(.seconds(1)),
                    .send(ServerFrame.make(0x0, [failFast[12]], fin: false)), .pause(.seconds(1)),
                    .send(ServerFrame.make(0x0, Array(failFast[13...])))
                ]
            },
            // A single frame whose payload comes in three writes: the client fails at the write
            // that breaks UTF-8, not once the frame is whole.
            AutobahnCase("6.4.3", "one frame written in three pieces, the second invalid", ending: .fails(1007)) {
                let frame = ServerFrame.make(0x1, failFast)
                let header = frame.count - failFast.count
                return [
                    .send(frame.prefix(header + 11)), .pause(.seconds(1)),
                    .send(frame.subdata(in: (header + 11)..<(header + 15))), .pause(.seconds(1)),
                    .send(frame.suffix(from: header + 15))
                ]
            },
            AutobahnCase("6.4.4", "as 6.4.3, split at the one byte that makes it invalid", ending: .fails(1007)) {
                let frame = ServerFrame.make(0x1, failFast)
                let header = frame.count - failFast.count
                return [
                    .send(frame.prefix(header + 12)), .pause(.seconds(1)),
                    .send(frame.subdata(in: (header + 12)..<(header + 13))), .pause(.seconds(1)),
                    .send(frame.suffix(from: header + 13))
                ]
            }
        ]
        for (groupIndex, group) in utf8Sequences.enumerated() {
            for (index, (isValid, bytes)) in group.sequences.enumerated() {
                let id = "6.\(groupIndex + 5).\(index + 1)"
                let hex = bytes.prefix(12).map { String($0, radix: 16) }.joined(separator: " ")
                let title = "\(group.title): \(hex)\(bytes.count > 12 ? " …" : "")"
                cases.append(
                    isValid
                        ? AutobahnCase(id, title, delivers: [.text(String(decoding: bytes, as: UTF8.self))]) {
                            [.send(ServerFrame.make(0x1, bytes))]
                        }
                        : AutobahnCase(id, title, ending: .fails(1007)) { [.send(ServerFrame.make(0x1, bytes))] })
            }
        }
        return cases
    }

    /// The groups 6.5 to 6.23: each sequence, and whether it is valid UTF-8 as a whole message.
    static var utf8Sequences: [(title: String, sequences: [(Bool, [UInt8])])] {
        let incomplete: [[UInt8]] = [
            [0xC0], [0xE0, 0x80], [0xF0, 0x80, 0x80], [0xF8, 0x80, 0x80, 0x80], [0xFC, 0x80, 0x80, 0x80, 0x80], [0xDF],
            [0xEF, 0xBF], [0xF7, 0xBF, 0xBF], [0xFB, 0xBF, 0xBF, 0xBF], [0xFD, 0xBF, 0xBF, 0xBF, 0xBF]
        ]
        let lonelyStarts: [[UInt8]] = [(0xC0, 0xDF), (0xE0, 0xEF), (0xF0, 0xF7), (0xF8, 0xFB), (0xFC, 0xFD)].map {
            (first, last) in (first..<last).flatMap { [UInt8($0), 0x20] }
        }
        var nonCharacters: [[UInt8]] = [[0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBF]]
        for first in [0xF0, 0xF1, 0xF2, 0xF3, 0xF4] as [UInt8] {
            for second in [0x8F, 0x9F, 0xAF, 0xBF] as [UInt8] where first != 0xF4 || second == 0x8F {
                for last in [0xBE, 0xBF] as [UInt8] where !(first == 0xF0 && second == 0x8F) {
                    nonCharacters.append([first, second, 0xBF, last])
                }
            }
        }
        let surrogates: [[UInt8]] = [
            [0xED, 0xA0, 0x80], [0xED, 0xAD, 0xBF], [0xED, 0xAE, 0x80], [0xED, 0xAF, 0xBF], [0xED, 0xB0, 0x80],
            [0xED, 0xBE, 0x80], [0xED, 0xBF, 0xBF]
        ]
        let high = [surrogates[0], surrogates[1], surrogates[2], surrogates[3]]
        let low = [surrogates[4], surrogates[6]]
        func valid(_ sequences: [[UInt8]]) -> [(Bool, [UInt8])] { sequences.map { (true, $0) } }
        func invalid(_ sequences: [[UInt8]]) -> [(Bool, [UInt8])] { sequences.map { (false, $0) } }
        return [
            (
                "some valid UTF-8",
                valid([
                    Array("hello$world".utf8), Array("hello¢world".utf8), Array("hello€world".utf8),
                    Array("hello𤭢world".utf8), kosme
                ])
            ),
            // A prefix is valid where it ends between characters.
            (
                "the prefixes of κόσμε",
                (1...kosme.count).map { ([2, 5, 7, 9, 11].contains($0), Array(kosme.prefix($0))) }
            ),
            (
                "the first sequence of each length",
                valid([[0x00], [0xC2, 0x80], [0xE0, 0xA0, 0x80], [0xF0, 0x90, 0x80, 0x80]])
            ),
            (
                "the first sequences of 5 and 6 bytes",
                invalid([[0xF8, 0x88, 0x80, 0x80, 0x80], [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]])
            ),
            (
                "the last sequence of each length",
                valid([[0x7F], [0xDF, 0xBF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF]])
            ),
            (
                "the last sequences of 4, 5 and 6 bytes",
                invalid([[0xF7, 0xBF, 0xBF, 0xBF], [0xFB, 0xBF, 0xBF, 0xBF, 0xBF], [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]]
                )
            ),
            (
                "other boundaries",
                valid([[0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD], [0xF4, 0x8F, 0xBF, 0xBF]])
                    + invalid([[0xF4, 0x90, 0x80, 0x80]])
            ),
            (
                "unexpected continuation bytes",
                invalid(
                    [
                        [0x80], [0xBF], [0x80, 0xBF], [0x80, 0xBF, 0x80], [0x80, 0xBF, 0x80, 0xBF],
                        [0x80, 0xBF, 0x80, 0xBF, 0x80], [0x80, 0xBF, 0x80, 0xBF, 0x80, 0xBF]
                    ] + [Array(0x80..<0xBF)])
            ),
            ("lonely start bytes", invalid(lonelyStarts)),
            ("sequences with the last continuation byte missing", invalid(incomplete)),
            ("incomplete sequences one after another", invalid([incomplete.flatMap { $0 }])),
            ("impossible bytes", invalid([[0xFE], [0xFF], [0xFE, 0xFE, 0xFF, 0xFF]])),
            (
                "an overlong ASCII character",
                invalid([
                    [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xF8, 0x80, 0x80, 0x80, 0xAF],
                    [0xFC, 0x80, 0x80, 0x80, 0x80, 0xAF]
                ])
            ),
            (
                "the longest overlong sequences",
                invalid([
                    [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF8, 0x87, 0xBF, 0xBF, 0xBF],
                    [0xFC, 0x83, 0xBF, 0xBF, 0xBF, 0xBF]
                ])
            ),
            (
                "an overlong NUL",
                invalid([
                    [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF8, 0x80, 0x80, 0x80, 0x80],
                    [0xFC, 0x80, 0x80, 0x80, 0x80, 0x80]
                ])
            ),
            ("single UTF-16 surrogates", invalid(surrogates)),
            ("paired UTF-16 surrogates", invalid(high.flatMap { first in low.map { first + $0 } })),
            ("non-characters (valid UTF-8)", valid(nonCharacters)),
            (
                "Unicode specials",
                valid((0xB9...0xBF).map { [0xEF, 0xBF, UInt8($0)] })
            )
        ]
    }
}
