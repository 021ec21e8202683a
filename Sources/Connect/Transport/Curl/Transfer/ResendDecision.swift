import CCurl

/// When a request goes out again below the retrier: libcurl's own resends, the transport's
/// restarts on a new connection, and which easy handles keep their setup afterwards. Plain
/// values, so that the rules are tested without a socket (`ResendDecisionTests`); the transfer
/// applies them from libcurl's callbacks and the loop from a finished transfer.
///
/// A request may be *repeated* when its method is idempotent, it carries an idempotency key, or
/// it allows retries. Only such a request ever goes out twice: libcurl 7.88 resends a request
/// when a reused connection ended without answering, or when an HTTP/2 server refused its
/// stream, and it shows nothing that tells those apart from a request the server read.
enum ResendDecision {
    /// Whether a request may go out more than once: it says so itself (`allowsRetry`, `false` to
    /// forbid it), or its method is idempotent, or it carries an idempotency key (the server
    /// recognises a second copy by it).
    @inline(__always)
    static func mayRepeat(methodIsIdempotent: Bool, hasIdempotencyKey: Bool, allowsRetry: Bool?) -> Bool {
        allowsRetry ?? (methodIsIdempotent || hasIdempotencyKey)
    }

    /// Whether the transport stops libcurl from sending a request on the `connectionsChosen`th
    /// connection it chose for the transfer (1 for the first). A second is libcurl sending the
    /// request again after a connection died or a stream was refused; a request that may not be
    /// repeated is then failed as `connectionClosed`, sent, and the retrier decides about it.
    ///
    /// `answersChallenge`: the last request was answered whole with an authentication
    /// challenge (`401` or `407`) that the transfer has credentials for. The server read it and
    /// refused it, without acting on it; the next one answers the challenge, and always goes.
    @inline(__always)
    static func refusesResend(connectionsChosen: Int, isRepeatable: Bool, answersChallenge: Bool = false) -> Bool {
        connectionsChosen > 1 && !isRepeatable && !answersChallenge
    }

    /// How many times a transfer starts over after a framing error.
    static let maximumRestartsAfterFramingError = 3

    /// Whether a transfer libcurl ended with a framing error (`CURLE_HTTP2`) starts over on a
    /// new connection, provided its body rewinds.
    ///
    /// A stream the server refused (`REFUSED_STREAM`, or one above the last stream a `GOAWAY`
    /// accepted) was not processed (RFC 9113 section 8.7). libcurl 7.88 sends it again itself,
    /// except when the refusal ends the connection's last stream: then it reports a framing error
    /// and gives up. A response head that nghttp2 refused ends the same way, after the server
    /// processed the request, so only a request that may be repeated starts over, before any of
    /// the response arrived, and a few times at most.
    static func startsOverAfterFramingError(responseStarted: Bool, isRepeatable: Bool, restartsSoFar: Int) -> Bool {
        !responseStarted && isRepeatable && restartsSoFar < maximumRestartsAfterFramingError
    }

    /// Whether a transfer libcurl ended with `code` after nothing of an answer came ended with
    /// its connection: the connection closed, reset or broke off under the stream. Not a stream
    /// the server reset (`CURLE_HTTP2_STREAM`): the server read that request and answered it so.
    static func endsWithDeadConnection(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING: return true
        default: return false
        }
    }

    /// Whether a transfer whose connection died before any of its answer came (see
    /// ``endsWithDeadConnection(_:)``) starts over on a new connection, provided its body
    /// rewinds.
    ///
    /// A server may close an idle connection at any moment, without a `GOAWAY`: hypercorn closes
    /// an idle TLS connection with a close_notify alone. A request written on a reused connection
    /// just before that close arrives reads nothing back. libcurl 7.88 sends such a request again
    /// itself over HTTP/1.1, but over HTTP/2 reports the stream as not closed cleanly. The server
    /// may still have read the request, so only a request that may be repeated starts over, and
    /// only on a reused connection: one opened for the request that dies is the server's answer,
    /// not a race with an idle close. A few times at most: the connection it starts over on can
    /// meet the same race, since a server closes each connection that idles as long (hypercorn,
    /// after a `GOAWAY`, closes the connection that left its streams unanswered and the new one
    /// that carried the rest within moments of each other).
    static func startsOverOnDeadConnection(
        connectionWasReused: Bool, responseStarted: Bool, isRepeatable: Bool, restartsSoFar: Int
    ) -> Bool {
        connectionWasReused && !responseStarted && isRepeatable && restartsSoFar < maximumRestartsOnDeadConnection
    }

    /// How many times a transfer starts over after its reused connection died before any answer.
    static let maximumRestartsOnDeadConnection = 3

    /// Which connection a transfer that starts over goes out on.
    enum RestartConnection: Equatable {
        /// One opened for it (`CURLOPT_FRESH_CONNECT`).
        case new
        /// Whichever libcurl chooses for it: a live HTTP/2 connection to the origin, or the one
        /// being opened to it, which it waits for (`CURLOPT_PIPEWAIT`).
        case anyLive
    }

    /// Why a transfer starts over.
    enum RestartCause: Equatable {
        /// The transport stopped it from going out on the connection libcurl chose: the
        /// connection had unread bytes, had not proved it multiplexes, or did not suit an h2c ask.
        case connectionRefused
        /// It was stopped from opening a connection while another transfer was opening one to
        /// the same origin (see ``SharedConnectionOpenings``).
        case waitedForSharedConnection
        /// Its connection died, or the server refused its stream or went away (a framing error,
        /// which only HTTP/2 has), before any of the answer came.
        case connectionEnded(multiplexed: Bool)
        /// The advertised HTTP/3 alternative it went to failed before it had a connection: it
        /// goes to the origin instead.
        case alternativeFailed
        /// libcurl timed it out by the connect timeout after it waited in its queue for a
        /// connection, before it began connecting or soon after (see
        /// ``startsOverAfterWaitingInQueue(_:connectingLasted:connectionChosen:connectTimeout:timeLeft:)``).
        case timedOutInQueue
    }

    /// Which connection a transfer that starts over goes out on.
    ///
    /// After the transport refused a connection, a new one: libcurl would choose the same again.
    /// After its HTTP/2 connection died or went away, any live one: libcurl has closed the one
    /// that failed it, and a close or a `GOAWAY` ends all of a connection's streams at once, so a new connection each
    /// would open as many connections, at the same moment, as there were streams. After its
    /// HTTP/1 connection died, a new one: a server that closes idle connections closes the
    /// others it keeps to this client as well, and libcurl would choose one of those.
    static func restartConnection(after cause: RestartCause) -> RestartConnection {
        switch cause {
        case .connectionRefused: .new
        case .waitedForSharedConnection: .anyLive
        case .connectionEnded(let multiplexed): multiplexed ? .anyLive : .new
        case .alternativeFailed: .anyLive
        case .timedOutInQueue: .anyLive
        }
    }

    /// Whether a transfer libcurl ended with `code` starts over because it timed out while it
    /// waited in libcurl's queue for a connection: the origin had `CURLMOPT_MAX_HOST_CONNECTIONS`
    /// connections busy, or the transfer waited for an HTTP/2 connection being opened.
    ///
    /// ``ConnectConfiguration/connectTimeout`` bounds connecting, and the request's timeout the
    /// whole exchange, the wait included. libcurl 7.88 starts the connect timeout when a transfer
    /// leaves the queue; libcurl 8 (8.14 `multi.c`) when it first asks for a connection, so that
    /// a burst of requests larger than the connections allowed fails by the connect timeout behind
    /// requests that are merely slow. Such a transfer ends before it began connecting
    /// (`connectingLasted` is `nil`: no name lookup, socket or connection), or just after, its own
    /// attempt cut short by the wait. It goes back into the queue while nothing of it went out (no
    /// connection was chosen for it), its own timeout has time left (`timeLeft`), and it had been
    /// connecting for less than half of `connectTimeout`: the wait, not its connecting, used up
    /// the larger part. One that connected for longer has had most of its time and fails: a
    /// connect fails after at least half the connect timeout of its own, and one that hangs is
    /// not started over with a whole connect timeout more because it once waited a moment.
    ///
    /// Nor is one that waited for a connection another transfer was opening to its origin
    /// (`waitedForOpening`: an opening was in progress when it timed out, or failed within its
    /// connect timeout before): libcurl 8 keeps such a transfer waiting for the pending
    /// connection itself, and waiting for a connection being opened is connecting (see
    /// ``SharedConnectionOpenings``). Started over, each would open a connection of its own in
    /// turn when the opening failed, one connect timeout after another.
    static func startsOverAfterWaitingInQueue(
        _ code: CURLcode, connectingLasted: Duration?, connectionChosen: Bool, connectTimeout: Duration,
        timeLeft: Duration, waitedForOpening: Bool
    ) -> Bool {
        guard code == CURLE_OPERATION_TIMEDOUT, !connectionChosen, !waitedForOpening, timeLeft >= .milliseconds(1)
        else { return false }
        guard let connectingLasted else { return true }
        return connectingLasted * 2 < connectTimeout
    }

    /// Whether a transfer that went to an advertised HTTP/3 alternative (`Alt-Svc`) and ended
    /// with `code` starts over to the origin: the alternative could not be reached, or its
    /// handshake or certificate failed (`code` says so), before libcurl chose a connection
    /// (`connectionsChosen` is 0), so nothing of the request went out. RFC 7838 §2.4: a client
    /// falls back to the origin when an alternative fails. Not a cancelled transfer
    /// (`CURLE_ABORTED_BY_CALLBACK`), nor one that failed on the connection it had.
    static func fallsBackFromAlternative(_ code: CURLcode, connectionsChosen: Int) -> Bool {
        guard connectionsChosen == 0 else { return false }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_SSL_CONNECT_ERROR,
            CURLE_PEER_FAILED_VERIFICATION, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            return true
        default:
            return false
        }
    }

    /// Whether a transfer about to open a new connection may be stopped to wait for another's
    /// (see ``SharedConnectionOpenings``) and go to libcurl again: it sent nothing yet, or it may
    /// be repeated. Otherwise libcurl is resending it, and the transport's check of the resend
    /// (``refusesResend(connectionsChosen:isRepeatable:answersChallenge:)``) must see it.
    @inline(__always)
    static func mayWaitForSharedConnection(connectionsChosen: Int, isRepeatable: Bool) -> Bool {
        connectionsChosen == 0 || isRepeatable
    }

    /// Whether an easy handle keeps the plain setup it holds after its transfer ends: only if
    /// the transfer succeeded on the first connection libcurl chose. libcurl 7.88 counts the
    /// times it sends a request again over an easy handle's life, not per request, and refuses a
    /// sixth; a reset clears that count, so a handle whose transfer went out again, failed or was
    /// cancelled is reset.
    @inline(__always)
    static func keepsHandleSetup(transferSucceeded: Bool, connectionsChosen: Int) -> Bool {
        transferSucceeded && connectionsChosen == 1
    }
}
