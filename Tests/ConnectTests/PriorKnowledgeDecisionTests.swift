import Testing

@testable import Connect

/// How h2c requests ask libcurl 7.88 for HTTP/2, without a socket: the first to an origin opens
/// a connection with prior knowledge, the others share it, and a connection that does not suit
/// the ask sends the transfer back to open one with prior knowledge.
@Suite("Prior-knowledge decisions")
struct PriorKnowledgeDecisionTests {
    typealias Ask = PriorKnowledgeConnections.Ask

    struct VerdictCase: Sendable, CustomStringConvertible {
        var asked: Ask
        var isNew: Bool
        var speaksH2C: Bool
        var expected: PriorKnowledgeConnections.Verdict
        var description: String { "\(asked), new \(isNew), h2c \(speaksH2C) → \(expected)" }
    }

    @Test(arguments: [
        // Prior knowledge opens connections: never on a reused one (curl issue 10634).
        VerdictCase(asked: .priorKnowledge, isNew: true, speaksH2C: false, expected: .proceed),
        VerdictCase(asked: .priorKnowledge, isNew: false, speaksH2C: true, expected: .restartWithPriorKnowledge),
        VerdictCase(asked: .priorKnowledge, isNew: false, speaksH2C: false, expected: .restartWithPriorKnowledge),
        // Reuse shares h2c connections: never a new one (it would send `Upgrade: h2c`) nor an
        // HTTP/1 one.
        VerdictCase(asked: .reuse, isNew: false, speaksH2C: true, expected: .proceed),
        VerdictCase(asked: .reuse, isNew: true, speaksH2C: false, expected: .restartWithPriorKnowledge),
        VerdictCase(asked: .reuse, isNew: false, speaksH2C: false, expected: .restartWithPriorKnowledge)
    ])
    func verdict(_ row: VerdictCase) {
        #expect(
            PriorKnowledgeConnections.verdict(
                asked: row.asked, connectionIsNew: row.isNew, connectionSpeaksH2C: row.speaksH2C) == row.expected)
    }

    /// One event on the origin's record, and what the next ask is after it.
    enum Step: Sendable, CustomStringConvertible {
        case ask(expect: Ask)
        case restart
        case settled
        case opened
        case closed

        var description: String {
            switch self {
            case .ask(let ask): return "ask → \(ask)"
            case .restart: return "restart"
            case .settled: return "settled"
            case .opened: return "opened"
            case .closed: return "closed"
            }
        }
    }

    struct Scenario: Sendable, CustomStringConvertible {
        var name: String
        var steps: [Step]
        var description: String { name }
    }

    @Test(arguments: [
        Scenario(
            name: "the first asks for prior knowledge, those while it opens wait to share",
            steps: [
                .ask(expect: .priorKnowledge), .ask(expect: .reuse), .ask(expect: .reuse)
            ]),
        Scenario(
            name: "an open connection is shared",
            steps: [
                .ask(expect: .priorKnowledge), .settled, .opened, .ask(expect: .reuse)
            ]),
        Scenario(
            name: "once the last connection closes, the next opens one",
            steps: [
                .ask(expect: .priorKnowledge), .settled, .opened, .closed, .ask(expect: .priorKnowledge)
            ]),
        Scenario(
            name: "an opener that failed before connecting holds nobody back",
            steps: [
                .ask(expect: .priorKnowledge), .settled, .ask(expect: .priorKnowledge)
            ]),
        Scenario(
            name: "a restart opens a connection even while one is open",
            steps: [
                .ask(expect: .priorKnowledge), .settled, .opened, .restart, .ask(expect: .reuse), .settled, .opened,
                .closed, .closed,
                .ask(expect: .priorKnowledge)
            ]),
        Scenario(
            name: "closing a connection never counted does not go below zero",
            steps: [
                .closed, .ask(expect: .priorKnowledge), .settled, .settled, .ask(expect: .priorKnowledge)
            ])
    ])
    func asks(_ scenario: Scenario) {
        var connections = PriorKnowledgeConnections()
        let origin = "127.0.0.1:8080"
        for step in scenario.steps {
            switch step {
            case .ask(let expected): #expect(connections.ask(for: origin) == expected, "\(step)")
            case .restart: #expect(connections.askAfterRestart(for: origin) == .priorKnowledge)
            case .settled: connections.priorKnowledgeAskSettled(for: origin)
            case .opened: connections.opened(to: origin)
            case .closed: connections.closed(to: origin)
            }
        }
        // Another origin is unaffected.
        #expect(connections.ask(for: "127.0.0.1:9090") == .priorKnowledge)
    }

    @Test(arguments: [
        ("http://Example.com/a", "example.com:80"),
        ("HTTP://127.0.0.1:8080/a?b=c", "127.0.0.1:8080"),
        ("http://[::1]:81/", "[::1]:81"),
        ("http://[::1]/", "[::1]:80"),
        ("http://user:p%40ss@Host.example:8080#top", "host.example:8080"),
        ("http://host.example?q=a:b/c", "host.example:80"),
        ("http://user:secret@host.example/", "host.example:80"),
        ("https://Example.com/a", "example.com:443"),
        ("https://example.com:8443", "example.com:8443"),
        ("https://[::1]/x", "[::1]:443")
    ])
    func originsOfURLs(_ url: String, _ origin: String) {
        #expect(CurlTransfer.origin(of: url) == origin)
    }
}
