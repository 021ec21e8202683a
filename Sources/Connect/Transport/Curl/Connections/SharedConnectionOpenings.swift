/// Which origins answer over connections that multiplex (HTTP/2), and which transfer is opening
/// a new connection to one: while it does, the other transfers to that origin wait to share it
/// instead of opening their own. A decision value, kept by the ``ConnectionTracker`` and tested
/// without sockets.
///
/// libcurl 7.88 lets a transfer wait for a connection being opened (`CURLOPT_PIPEWAIT`) only
/// while it knows nothing of the origin yet. Once a connection to the origin has multiplexed, a
/// new connection that is still being opened counts as closing (libcurl marks every connection
/// so until its protocol is set up), so every transfer that finds no open connection it may use
/// opens one more: after a `GOAWAY`, or once a server has closed an HTTP/2 connection, as many
/// connections as there were transfers waiting, at the same moment (hypercorn's `GOAWAY` after
/// 1,000 requests, with 16 requests in flight, gave 17 connections).
///
/// libcurl 8.14 waits for a pending connection itself (its verbose log: "Found pending candidate
/// for reuse and CURLOPT_PIPEWAIT is set"), but not a transfer that asks for a fresh connection:
/// after a `GOAWAY`, the transfers that had asked to share the connection going away start over
/// on a new connection (``ResendDecision/restartConnection(after:)``), and each opened one.
///
/// So the transport decides when libcurl creates a socket for a transfer (see
/// ``ConnectionTracker/opened(_:)``): to an origin that multiplexes, the first such transfer
/// opens its connection, and any other is stopped before it connects and waits until that
/// connection is ready (``settled(_:by:)``), then goes to libcurl again and shares it.
///
/// Waiting for a connection being opened is connecting: the wait counts toward a transfer's
/// connect timeout (``connectTimeLeft(waited:connectTimeout:)``). Otherwise, when the opening
/// fails (a server that stopped answering, a route that went dark), the transfers that waited
/// would take turns at opening a connection of their own, each after the one before it timed
/// out: the last of 64 would fail after 64 connect timeouts, or at its own timeout.
struct SharedConnectionOpenings {
    /// What a transfer that is about to open a new connection does.
    enum Opening: Equatable {
        /// It opens the connection, and the origin's other transfers wait for it.
        case opens
        /// Another transfer is opening a connection to the origin: wait for it.
        case waits
        /// It opens the connection; nothing waits for it (the origin has not multiplexed, or
        /// the transfer may not wait).
        case proceeds
    }

    /// Origins ("host:port") that answered over HTTP/2 on a connection of this transport.
    private(set) var multiplexing: Set<String> = []
    /// Per origin, the transfer opening a new connection to it.
    private(set) var openers: [String: ObjectIdentifier] = [:]
    /// Per origin, when its last opening ended without a connection.
    private(set) var failures: [String: MonotonicInstant] = [:]
    /// Whether no origin multiplexes, so that nothing ever waits: the common HTTP/1 case pays
    /// only for this check.
    var isEmpty: Bool { multiplexing.isEmpty }

    /// A connection to `origin` multiplexed.
    mutating func multiplexes(_ origin: String) {
        multiplexing.insert(origin)
    }

    /// What `transfer`, about to open a new connection to `origin`, does. `mayWait`: it can
    /// go to libcurl again without sending anything twice (see
    /// ``ResendDecision/mayWaitForSharedConnection(connectionsChosen:isRepeatable:)``).
    mutating func opening(_ origin: String, by transfer: ObjectIdentifier, mayWait: Bool) -> Opening {
        guard multiplexing.contains(origin) else { return .proceeds }
        switch openers[origin] {
        case nil:
            openers[origin] = transfer
            return .opens
        case transfer:
            return .opens  // its own connection again (a second address, or a restart)
        default:
            return mayWait ? .waits : .proceeds
        }
    }

    /// Whether a transfer to `origin` waits before it goes to libcurl: another is opening a
    /// connection to it.
    func waits(for origin: String) -> Bool {
        openers[origin] != nil
    }

    /// The connection `transfer` opened to `origin` is ready, or the transfer ended without
    /// one: the transfers that waited for it go.
    mutating func settled(_ origin: String, by transfer: ObjectIdentifier) {
        if openers[origin] == transfer { openers[origin] = nil }
    }

    /// The transfer opening a connection to `origin` ended at `now` without one.
    mutating func openingFailed(_ origin: String, by transfer: ObjectIdentifier, at now: MonotonicInstant) {
        guard openers[origin] == transfer else { return }
        failures[origin] = now
    }

    /// Whether `transfer`, to `origin`, that timed out at `now` without a connection waited for
    /// one another transfer was opening: one is being opened, or one failed within
    /// `connectTimeout` before `now` (while the transfer waited, as libcurl 8 counts its connect
    /// timeout from its first ask for a connection).
    func waitedForOpening(
        to origin: String, by transfer: ObjectIdentifier, within connectTimeout: Duration, before now: MonotonicInstant
    ) -> Bool {
        if let opener = openers[origin] { return opener != transfer }
        guard let failed = failures[origin] else { return false }
        return now - failed <= connectTimeout
    }

    /// What a transfer that `waited` for another's connection has left of `connectTimeout` for
    /// connecting itself, or `nil` when the wait used it up (less than a millisecond, libcurl's
    /// unit, is left): the transfer fails with the connect timeout instead of going to libcurl.
    static func connectTimeLeft(waited: Duration, connectTimeout: Duration) -> Duration? {
        let left = connectTimeout - waited
        return left >= .milliseconds(1) ? left : nil
    }
}
