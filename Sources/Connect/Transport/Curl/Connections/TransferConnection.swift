/// One transfer's standing with the transport's ``ConnectionTracker``: the connection it opened
/// and the one its request went out on, what it asked libcurl for h2c, and what it holds in the
/// tracker's books until it gives it back: an exchange in flight on its connection
/// (``leave(_:)``), an opening other transfers wait for (``settleOpening(_:by:)``), a
/// prior-knowledge ask that holds back the origin's other h2c transfers
/// (``settlePriorKnowledgeAsk(_:)``). Each is given back once; ``release(_:by:)`` gives back all
/// three, when the transfer leaves its handle however it ended.
///
/// Records, not decisions: whether a request goes out on a connection is ``ConnectionChoice``'s.
struct TransferConnection {
    /// The socket of the connection the request went out on, once libcurl chose it and the
    /// tracker knows it.
    var socket: Int32?
    /// The socket libcurl opened for this transfer, and its serial in the tracker: how a Unix
    /// domain socket connection, which has no ports, is known.
    var opened: (socket: Int32, serial: UInt32)?
    /// The origin this transfer opens a new connection to while other transfers wait for it
    /// (see ``SharedConnectionOpenings``), until the connection is ready or the transfer ends.
    private var opensTo: String?
    /// The connection's serial while this transfer counts among its exchanges in flight (see
    /// ``ConnectionTracker/exchangeStarted(on:)``).
    private var serial: UInt32?
    /// For a request that wants HTTP/2 with prior knowledge on an `http://` URL: its origin and
    /// what it asked libcurl for (see ``PriorKnowledgeConnections``).
    private(set) var h2c: (origin: String, ask: PriorKnowledgeConnections.Ask)?
    /// It asked for prior knowledge and has no connection yet: counted among the tracker's
    /// connections being opened until it has one or ends.
    private var awaitsPriorKnowledge = false

    /// The transfer asked libcurl for h2c to `origin` as `ask` says.
    mutating func asked(_ ask: PriorKnowledgeConnections.Ask, for origin: String) {
        h2c = (origin, ask)
        awaitsPriorKnowledge = ask == .priorKnowledge
    }

    /// The transfer opens a new connection to `origin` that others wait for.
    mutating func opens(to origin: String) {
        opensTo = origin
    }

    /// The request goes out on the connection of `socket` (`nil`: one the tracker has no record
    /// of), counted among its exchanges in flight.
    mutating func wentOut(on socket: Int32?, _ connections: ConnectionTracker) {
        self.socket = socket
        guard let socket else { return }
        serial = connections.exchangeStarted(on: socket)
    }

    /// The transfer no longer counts among the exchanges in flight on its connection: it ended,
    /// or starts over on another.
    mutating func leave(_ connections: ConnectionTracker) {
        guard let serial, let socket else { return }
        connections.exchangeLeft(socket, serial: serial)
        self.serial = nil
    }

    /// The connection this transfer opened is ready, or the transfer ends: the transfers that
    /// waited for it may go.
    mutating func settleOpening(_ connections: ConnectionTracker, by transfer: ObjectIdentifier) {
        guard let origin = opensTo else { return }
        opensTo = nil
        connections.openings.settled(origin, by: transfer)
    }

    /// The transfer got its connection or ends without one: it no longer holds back the others
    /// that want to share the connection it was opening.
    mutating func settlePriorKnowledgeAsk(_ connections: ConnectionTracker) {
        guard awaitsPriorKnowledge, let h2c else { return }
        awaitsPriorKnowledge = false
        connections.priorKnowledge.priorKnowledgeAskSettled(for: h2c.origin)
    }

    /// The transfer starts over: it leaves its connection and forgets it, and gives its
    /// prior-knowledge ask back (it asks again).
    mutating func startsOver(_ connections: ConnectionTracker) {
        leave(connections)
        socket = nil
        opened = nil
        settlePriorKnowledgeAsk(connections)
    }

    /// The transfer leaves its handle, however it ended: everything it holds goes back. An
    /// opening it still holds ended without a connection.
    mutating func release(_ connections: ConnectionTracker, by transfer: ObjectIdentifier) {
        settlePriorKnowledgeAsk(connections)
        if let origin = opensTo { connections.openings.openingFailed(origin, by: transfer, at: .now) }
        settleOpening(connections, by: transfer)
        leave(connections)
    }
}
