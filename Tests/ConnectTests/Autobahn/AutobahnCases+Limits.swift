import ConnectTestServer
import Foundation

@testable import Connect

/// Section 9: large messages (up to 16 MiB, the largest a socket takes by default), messages in
/// many small fragments, messages written in small pieces, and a thousand round trips one after
/// another. Autobahn times these; here each must arrive whole and come back whole, and the
/// benchmark (`make bench-websockets`) measures speed. 9.9.1 sends one message in endless
/// fragments: the client fails it with 1009 once it passes the largest message.
///
/// Under a sanitizer (`make test-tsan`, `make test-asan`, which set `TSAN_OPTIONS` and
/// `ASAN_OPTIONS`) the sizes are a sixteenth and the round trips a hundred: those passes look
/// for races and bad memory, which the same code shows on less data, ten times slower.
extension AutobahnCases {
    /// Whether a sanitizer runs the tests.
    static let isSanitized = ["TSAN_OPTIONS", "ASAN_OPTIONS"].contains {
        ProcessInfo.processInfo.environment[$0] != nil
    }
    /// What the sizes of section 9 are divided by.
    static let scale = isSanitized ? 16 : 1
    /// The largest message a case's socket takes: Connect's default, scaled.
    static let largestMessage = WebSocketOptions.default.maximumMessageSize / scale

    static var limits: [AutobahnCase] {
        var cases: [AutobahnCase] = []
        let sizes = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 8 << 20, 16 << 20].map { $0 / scale }
        let fragmentSizes = [64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
        let chopSizes = [64, 128, 256, 512, 1024, 2048]
        let roundTrips = 1000 / (isSanitized ? 10 : 1)
        for (group, isText) in [(1, true), (2, false)] {
            for (index, size) in sizes.enumerated() {
                cases.append(
                    AutobahnCase(
                        "9.\(group).\(index + 1)", "a \(isText ? "text" : "binary") message of \(size >> 10) KiB",
                        delivers: [message(isText: isText, "BAsd7&jh23", size)]
                    ) {
                        [.send(ServerFrame.make(isText ? 0x1 : 0x2, ServerFrame.filled("BAsd7&jh23", size)))]
                    })
            }
        }
        for (group, isText) in [(3, true), (4, false)] {
            for (index, fragmentSize) in fragmentSizes.enumerated() {
                cases.append(
                    AutobahnCase(
                        "9.\(group).\(index + 1)",
                        "a \((4 << 10) / scale) KiB \(isText ? "text" : "binary") message in fragments of \(fragmentSize)",
                        delivers: [message(isText: isText, "*", (4 << 20) / scale)]
                    ) {
                        [
                            .send(
                                ServerFrame.message(
                                    isText ? 0x1 : 0x2, ServerFrame.filled("*", (4 << 20) / scale),
                                    fragmentSize: fragmentSize
                                ))
                        ]
                    })
            }
        }
        for (group, isText) in [(5, true), (6, false)] {
            for (index, chop) in chopSizes.enumerated() {
                cases.append(
                    AutobahnCase(
                        "9.\(group).\(index + 1)",
                        "a \((1 << 10) / scale) KiB \(isText ? "text" : "binary") message in writes of \(chop)",
                        delivers: [message(isText: isText, "BAsd7&jh23", (1 << 20) / scale)]
                    ) {
                        ServerFrame.chopped(
                            ServerFrame.make(isText ? 0x1 : 0x2, ServerFrame.filled("BAsd7&jh23", (1 << 20) / scale)),
                            chop)
                    })
            }
        }
        for (group, isText) in [(7, true), (8, false)] {
            for (index, size) in [0, 16, 64, 256, 1024, 4096].enumerated() {
                let payload = [UInt8](repeating: isText ? 0x2A : 0xFE, count: size)
                let one: WebSocketMessage = isText ? .text(String(repeating: "*", count: size)) : .binary(Data(payload))
                cases.append(
                    AutobahnCase(
                        "9.\(group).\(index + 1)",
                        "\(roundTrips) \(isText ? "text" : "binary") round trips of \(size) bytes",
                        delivers: Array(repeating: one, count: roundTrips)
                    ) {
                        let frame = ServerFrame.make(isText ? 0x1 : 0x2, payload)
                        return (1...roundTrips).flatMap { [.send(frame), .awaitMessages($0)] }
                    })
            }
        }
        cases.append(
            AutobahnCase("9.9.1", "a text message of endless 4 KiB fragments", ending: .fails(1009)) {
                let fragment = ServerFrame.filled("*", 4 << 10)
                var bytes = ServerFrame.make(0x1, fragment, fin: false)
                let continuation = ServerFrame.make(0x0, fragment, fin: false)
                for _ in 0..<(largestMessage / fragment.count) { bytes += continuation }
                return [.send(bytes)]
            })
        return cases
    }

    static func message(isText: Bool, _ pattern: String, _ count: Int) -> WebSocketMessage {
        isText ? .filled(pattern, count) : .binary(Data(ServerFrame.filled(pattern, count)))
    }
}
