/// How requests that want HTTP/2 with prior knowledge on `http://` URLs (h2c) ask libcurl for
/// it, and which origins have such a connection open: a decision value, kept by the
/// ``ConnectionTracker`` and tested without sockets.
///
/// libcurl 7.88 has two option values for it, and each works for only half the job:
/// - `CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE` opens a connection that speaks HTTP/2 from its first
///   byte, but a later transfer asking for it again breaks the connection it reuses (it stacks a
///   second HTTP/2 layer on it: "Error in the HTTP2 framing layer", curl issue 10634);
/// - `CURL_HTTP_VERSION_2_0` reuses such a connection correctly, but on a new connection it
///   sends an HTTP/1.1 request with `Upgrade: h2c`, which a server that speaks only HTTP/2 on the
///   port cannot read.
///
/// So the first request to an origin asks for prior knowledge and the others ask to reuse
/// (with `CURLOPT_PIPEWAIT`, so that they wait for the first one's connection instead of opening
/// their own). When libcurl has chosen the connection, before anything is sent on it,
/// ``verdict(asked:connectionIsNew:connectionSpeaksH2C:)`` checks that the ask suits it: a
/// reuse ask that got a new connection (the last one closed meanwhile) or a prior-knowledge ask
/// that got a reused one starts over with prior knowledge on a fresh connection, which always
/// suits.
struct PriorKnowledgeConnections {
    /// What one transfer asks libcurl for.
    enum Ask: Equatable {
        /// `CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`: for a new connection.
        case priorKnowledge
        /// `CURL_HTTP_VERSION_2_0`: to share a connection opened with prior knowledge.
        case reuse
    }

    /// Whether a transfer may go out on the connection libcurl chose.
    enum Verdict: Equatable {
        case proceed
        /// Nothing was sent: start over with prior knowledge on a fresh connection.
        case restartWithPriorKnowledge
    }

    /// Connections open per origin ("host:port") known to speak HTTP/2 with prior knowledge.
    private(set) var openConnections: [String: Int] = [:]
    /// Transfers per origin that asked for prior knowledge and have no connection yet: while
    /// one is opening a connection, the others wait to share it.
    private(set) var opening: [String: Int] = [:]

    /// What the next transfer to `origin` asks for.
    mutating func ask(for origin: String) -> Ask {
        if openConnections[origin, default: 0] > 0 || opening[origin, default: 0] > 0 { return .reuse }
        opening[origin, default: 0] += 1
        return .priorKnowledge
    }

    /// What a transfer to `origin` that starts over asks for: prior knowledge, on a fresh
    /// connection.
    mutating func askAfterRestart(for origin: String) -> Ask {
        opening[origin, default: 0] += 1
        return .priorKnowledge
    }

    /// Whether a transfer that asked `asked` may go out on the connection libcurl chose: a new
    /// one only with prior knowledge, and a reused one only if it speaks h2c.
    static func verdict(asked: Ask, connectionIsNew: Bool, connectionSpeaksH2C: Bool) -> Verdict {
        switch asked {
        case .priorKnowledge: return connectionIsNew ? .proceed : .restartWithPriorKnowledge
        case .reuse: return !connectionIsNew && connectionSpeaksH2C ? .proceed : .restartWithPriorKnowledge
        }
    }

    /// A transfer that asked for prior knowledge got its connection or ended without one.
    mutating func priorKnowledgeAskSettled(for origin: String) {
        Self.decrement(&opening, origin)
    }

    /// A new connection to `origin` speaks HTTP/2 with prior knowledge.
    mutating func opened(to origin: String) {
        openConnections[origin, default: 0] += 1
    }

    /// A connection to `origin` that spoke h2c closed.
    mutating func closed(to origin: String) {
        Self.decrement(&openConnections, origin)
    }

    /// One fewer for `origin`, never below zero; an origin at zero leaves the table.
    private static func decrement(_ counts: inout [String: Int], _ origin: String) {
        guard let count = counts[origin] else { return }
        counts[origin] = count > 1 ? count - 1 : nil
    }
}
