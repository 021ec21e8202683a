import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// One case of the Autobahn|Testsuite (crossbario/autobahn-testsuite, its `fuzzingserver`
/// cases), ported as data: the bytes its server sends, and what a correct client does with
/// them. `AutobahnTests` runs every case twice: through the client's decision values (fed whole
/// and one byte at a time) and against ``ScriptedWebSocketServer`` over a socket.
struct AutobahnCase: Sendable, CustomTestStringConvertible {
    typealias Step = ScriptedWebSocketServer.Step

    /// How the case ends.
    enum Ending: Sendable, Equatable {
        /// Once every message came back, the server closes with 1000 and the client echoes it.
        case closesNormally
        /// The case's own close frame ends it; the client echoes this code (`nil`: an empty close).
        case echoesClose(UInt16?)
        /// The client fails the connection with this close code.
        case fails(UInt16)

        /// Whether the client echoes every message it gets: in every case but those its own close
        /// ends, whose server sends that close without waiting for echoes.
        var clientEchoes: Bool {
            if case .echoesClose = self { return false }
            return true
        }

        /// The code of the client's close frame.
        var clientCloseCode: UInt16? {
            switch self {
            case .closesNormally: 1000
            case .echoesClose(let code): code
            case .fails(let code): code
            }
        }
    }

    /// The case's number in the Autobahn report, `1.1.1` to `9.8.6`.
    let id: String
    let title: String
    /// The server's writes and pauses after the handshake, built when the case runs (section 9's
    /// are megabytes).
    let steps: @Sendable () -> [Step]
    /// The messages the client's reader gets, in order.
    let delivered: @Sendable () -> [WebSocketMessage]
    /// The payloads of the pongs the client answers with, in order.
    let pongs: [[UInt8]]
    let ending: Ending

    init(
        _ id: String, _ title: String,
        delivers delivered: @autoclosure @escaping @Sendable () -> [WebSocketMessage] = [],
        pongs: [[UInt8]] = [], ending: Ending = .closesNormally, steps: @escaping @Sendable () -> [Step]
    ) {
        self.id = id
        self.title = title
        self.steps = steps
        self.delivered = delivered
        self.pongs = pongs
        self.ending = ending
    }

    var testDescription: String { "\(id) \(title)" }

    /// The section: `1` for `1.1.1`.
    var section: Int { Int(id.prefix { $0 != "." }) ?? 0 }

    /// Every step the server takes: the case's own, then, for a case that ends normally, a wait
    /// for the client's echoes and a close with 1000.
    func serverSteps() -> [Step] {
        guard ending == .closesNormally else { return steps() }
        return steps() + [.awaitMessages(delivered().count), .send(ServerFrame.close(1000))]
    }
}

extension WebSocketMessage {
    /// A text message of `count` bytes of `pattern`.
    static func filled(_ pattern: String, _ count: Int) -> WebSocketMessage {
        .text(String(decoding: ServerFrame.filled(pattern, count), as: UTF8.self))
    }
}
