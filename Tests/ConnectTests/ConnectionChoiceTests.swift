import Testing

@testable import Connect

/// Whether a request goes out on the connection libcurl chose, without a socket: the facts the
/// tracker would answer, in; the action, and which facts were asked, out. The wire behaviour is
/// tested by `FaultSuiteTests` (a stray response on an idle connection), `UnixSocketTests`,
/// `ConnectionSharingTests` and `HTTPVersionTests` (h2c).
@Suite("Connection choice")
struct ConnectionChoiceTests {
    /// A tracker's answers, and the questions asked of it, in order.
    final class Answers: ConnectionChoice.Facts, @unchecked Sendable {
        // @unchecked: one test's thread alone.
        let socketAnswer: ConnectionChoice.Socket
        let unreadBytes: Bool
        let allowsAnother: Bool
        let connection: (isNew: Bool, speaksH2C: Bool)
        var asked: [String] = []

        init(
            _ socket: ConnectionChoice.Socket, unreadBytes: Bool = false, allowsAnother: Bool = true,
            connection: (isNew: Bool, speaksH2C: Bool) = (false, false)
        ) {
            socketAnswer = socket
            self.unreadBytes = unreadBytes
            self.allowsAnother = allowsAnother
            self.connection = connection
        }

        func socket() -> ConnectionChoice.Socket {
            asked.append("socket")
            return socketAnswer
        }

        func hasUnreadBytes(_ socket: Int32) -> Bool {
            asked.append("unread \(socket)")
            return unreadBytes
        }

        func allowsAnotherExchange(_ socket: Int32) -> Bool {
            asked.append("sharing \(socket)")
            return allowsAnother
        }

        func choose(_ socket: Int32) -> (isNew: Bool, speaksH2C: Bool) {
            asked.append("choose \(socket)")
            return connection
        }
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var ask: PriorKnowledgeConnections.Ask?
        /// libcurl before 8.0, which reuses a connection with bytes waiting, unless a row says.
        var libcurlReusesUnreadConnections = true
        var answers: @Sendable () -> Answers
        var expected: ConnectionChoice.Action
        var asked: [String]
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "an idle HTTP/1 connection with nothing waiting", ask: nil, answers: { Answers(.known(7)) },
            expected: .proceed(socket: 7, opensH2C: false), asked: ["socket", "unread 7", "sharing 7"]),
        Row(
            name: "a connection the tracker has no record of goes unchecked", ask: nil,
            answers: { Answers(.untracked) },
            expected: .proceed(socket: nil, opensH2C: false), asked: ["socket"]),
        Row(
            name: "a stray response waits on it: shut down, start over", ask: nil,
            answers: { Answers(.known(7), unreadBytes: true) },
            expected: .restartOnNewConnection(shutDown: [7]), asked: ["socket", "unread 7"]),
        Row(
            name: "it may not carry another exchange yet: start over, leave it", ask: nil,
            answers: { Answers(.known(7), allowsAnother: false) },
            expected: .restartOnNewConnection(shutDown: []), asked: ["socket", "unread 7", "sharing 7"]),
        Row(
            name: "Unix socket connections that cannot be told apart: the idle ones shut down", ask: nil,
            answers: { Answers(.ambiguous(idle: [4, 9])) },
            expected: .restartOnNewConnection(shutDown: [4, 9]), asked: ["socket"]),
        Row(
            name: "h2c: prior knowledge on a new connection opens it", ask: .priorKnowledge,
            answers: { Answers(.known(5), connection: (true, false)) },
            expected: .proceed(socket: 5, opensH2C: true), asked: ["socket", "unread 5", "sharing 5", "choose 5"]),
        Row(
            name: "h2c: prior knowledge on a reused connection starts over", ask: .priorKnowledge,
            answers: { Answers(.known(5), connection: (false, true)) },
            expected: .restartOnNewConnection(shutDown: []), asked: ["socket", "unread 5", "sharing 5", "choose 5"]),
        Row(
            name: "h2c: a reuse ask shares an h2c connection", ask: .reuse,
            answers: { Answers(.known(5), connection: (false, true)) },
            expected: .proceed(socket: 5, opensH2C: false), asked: ["socket", "unread 5", "sharing 5", "choose 5"]),
        Row(
            name: "h2c: a reuse ask given a new connection starts over", ask: .reuse,
            answers: { Answers(.known(5), connection: (true, false)) },
            expected: .restartOnNewConnection(shutDown: []), asked: ["socket", "unread 5", "sharing 5", "choose 5"]),
        Row(
            name: "h2c: a stray response is found before the ask is checked", ask: .reuse,
            answers: { Answers(.known(5), unreadBytes: true, connection: (false, true)) },
            expected: .restartOnNewConnection(shutDown: [5]), asked: ["socket", "unread 5"]),
        Row(
            name: "h2c through an untracked connection goes unchecked", ask: .reuse, answers: { Answers(.untracked) },
            expected: .proceed(socket: nil, opensH2C: false), asked: ["socket"]),
        Row(
            name: "libcurl 8 closes a connection with bytes waiting itself: nothing to look for", ask: nil,
            libcurlReusesUnreadConnections: false, answers: { Answers(.known(7), unreadBytes: true) },
            expected: .proceed(socket: 7, opensH2C: false), asked: ["socket", "sharing 7"]),
        Row(
            name: "libcurl 8: the sharing rule still holds", ask: nil, libcurlReusesUnreadConnections: false,
            answers: { Answers(.known(7), allowsAnother: false) },
            expected: .restartOnNewConnection(shutDown: []), asked: ["socket", "sharing 7"]),
        Row(
            name: "libcurl 8: h2c goes on to its ask", ask: .reuse, libcurlReusesUnreadConnections: false,
            answers: { Answers(.known(5), connection: (false, true)) },
            expected: .proceed(socket: 5, opensH2C: false), asked: ["socket", "sharing 5", "choose 5"])
    ]

    @Test(arguments: rows)
    func action(_ row: Row) {
        let answers = row.answers()
        #expect(
            ConnectionChoice.chosen(
                h2cAsk: row.ask, libcurlReusesUnreadConnections: row.libcurlReusesUnreadConnections, answers)
                == row.expected)
        #expect(answers.asked == row.asked, "only what the choice needs is asked, in order")
    }
}
