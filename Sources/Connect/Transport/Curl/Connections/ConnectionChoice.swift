/// Whether a request goes out on the connection libcurl chose for it, or starts over on a new
/// one: a decision that asks the transport's record of the connection (``Facts``) what it needs,
/// in order, each question only when the answers before it leave the choice open, and returns
/// what the transfer does. ``ConnectionTracker`` records connections and answers; it does not
/// decide. Tested by table without sockets (`ConnectionChoiceTests`).
///
/// The rules, in order:
/// - A Unix domain socket's connection that cannot be told apart from the others through the
///   same path (libcurl names a connection by its ports, which such a socket lacks): start over
///   on a new connection, the idle ones through the path shut down, so that the next transfer
///   finds at most that one.
/// - An HTTP/1 connection with bytes waiting that nobody asked for (a second, unrequested
///   response), on a libcurl that reuses such a connection (before 8.0: see
///   ``LibcurlDefects/reusesConnectionsWithBytesWaiting``): libcurl would read them as this
///   request's answer. Shut it down and start over. Later versions close such a connection
///   before they choose it, so the question is not asked there.
/// - A connection that may not carry another exchange now (see ``ConnectionSharing``): start
///   over.
/// - An h2c transfer: its ask must suit the connection (see ``PriorKnowledgeConnections``), or
///   it starts over with prior knowledge on a new one.
enum ConnectionChoice {
    /// Which connection libcurl chose, as the tracker knows it.
    enum Socket: Equatable {
        case known(Int32)
        /// A connection the tracker has no record of: the request goes, unchecked.
        case untracked
        /// Through a Unix domain socket, one of several connections that cannot be told apart:
        /// `idle` are those among them that carry no exchange.
        case ambiguous(idle: [Int32])
    }

    /// What the transfer does with the chosen connection.
    enum Action: Equatable {
        /// Send on it (`socket`, when the tracker knows it). `opensH2C`: a new connection, opened
        /// with prior knowledge, that now speaks h2c to the transfer's origin.
        case proceed(socket: Int32?, opensH2C: Bool)
        /// Send nothing: shut `shutDown` down, so that libcurl never reuses them, and start over
        /// on a new connection.
        case restartOnNewConnection(shutDown: [Int32])
    }

    /// What the transport knows of the connection libcurl chose.
    protocol Facts {
        /// The connection's socket.
        func socket() -> Socket
        /// The connection last carried an HTTP/1 exchange and has bytes waiting nobody asked for.
        func hasUnreadBytes(_ socket: Int32) -> Bool
        /// The connection may carry another exchange now (see ``ConnectionSharing``).
        func allowsAnotherExchange(_ socket: Int32) -> Bool
        /// Records the connection as chosen; whether it was new (never chosen before) and whether
        /// it speaks h2c.
        func choose(_ socket: Int32) -> (isNew: Bool, speaksH2C: Bool)
    }

    /// What a transfer does with the connection `facts` describe. `h2cAsk`: what an h2c
    /// transfer asked libcurl for (`nil` for every other transfer).
    /// `libcurlReusesUnreadConnections`: the libcurl running reuses a connection with bytes
    /// waiting.
    static func chosen(
        h2cAsk: PriorKnowledgeConnections.Ask?, libcurlReusesUnreadConnections: Bool, _ facts: some Facts
    ) -> Action {
        let socket: Int32
        switch facts.socket() {
        case .known(let known): socket = known
        case .untracked: return .proceed(socket: nil, opensH2C: false)
        case .ambiguous(let idle): return .restartOnNewConnection(shutDown: idle)
        }
        if libcurlReusesUnreadConnections && facts.hasUnreadBytes(socket) {
            return .restartOnNewConnection(shutDown: [socket])
        }
        if !facts.allowsAnotherExchange(socket) { return .restartOnNewConnection(shutDown: []) }
        guard let h2cAsk else { return .proceed(socket: socket, opensH2C: false) }
        let connection = facts.choose(socket)
        switch PriorKnowledgeConnections.verdict(
            asked: h2cAsk, connectionIsNew: connection.isNew, connectionSpeaksH2C: connection.speaksH2C)
        {
        case .proceed: return .proceed(socket: socket, opensH2C: h2cAsk == .priorKnowledge)
        case .restartWithPriorKnowledge: return .restartOnNewConnection(shutDown: [])
        }
    }
}
