internal import ConnectWire
import CCurl

/// What one HTTP transfer has seen, and what it does next: libcurl's callbacks and its end come
/// in as events, and each returns what ``CurlTransfer`` is to do on its easy handle. A plain
/// value, so that the paths the fault, restart and resend suites reach are tested as tables of
/// events and actions without a socket (`TransferStateTests`).
///
/// The transfer keeps the resources (the handle, the buffers the answer goes into, the body's
/// reader, the file, the decoder) and runs the actions; this keeps the facts that decide. The
/// end is the last event: ``ended(_:)`` says whether the transfer starts over, opens a
/// WebSocket, or settles with a success or a failure; nothing beside it decides that.
///
/// Connect's own findings come before libcurl's code: libcurl 7.88 lets a malformed head, a
/// broken body framing or a resend through, or reports them as something vaguer.
struct TransferState {
    /// The request's method, for messages.
    let method: HTTPMethod
    /// The request may go out more than once (see
    /// ``ResendDecision/mayRepeat(methodIsIdempotent:hasIdempotencyKey:allowsRetry:)``).
    let isRepeatable: Bool
    /// The request body is a one-time stream, which cannot go out again.
    let bodyIsOneTimeStream: Bool

    // The answer, as the callbacks saw it.

    /// What the response head has shown so far.
    private(set) var head = ResponseHeadParser()
    /// Why Connect refused the response head, if it did.
    private(set) var headProblem: ResponseHeadParser.Problem?
    /// The last status line said HTTP/2.
    private(set) var responseIsHTTP2 = false
    /// Why the body's framing or content coding failed, if it did.
    private(set) var decodingFailure: BodyDecoder.Failure?
    /// The body went past the configured limit.
    private(set) var bodyTooLarge = false
    /// Body bytes libcurl delivered and the transfer took, before decoding, while a request body
    /// was going out (the only time they are counted: see ``bodyTaken(_:isBodySent:)``).
    private(set) var bodyBytesTaken = 0
    /// The whole answer came over HTTP/2 before the whole request body went out, and the
    /// transfer was stopped there as a success (libcurl then reports a write error).
    private(set) var answeredBeforeBodySent = false

    // The connection, as libcurl chose it and the transport checked it.

    /// Connections libcurl has chosen for this attempt: a second means it is sending the request
    /// again after a connection died.
    private(set) var connectionsChosen = 0
    /// libcurl was stopped from sending the request again, which may not be repeated.
    private(set) var refusedResend = false
    /// The transport stopped the request from going out on the connection libcurl chose: the
    /// transfer starts over on a new one.
    private(set) var needsFreshConnection = false
    /// The origin whose new connection, opened by another transfer, this one waits for: it was
    /// stopped before it opened its own, and starts over once that one is ready.
    private(set) var waitsForConnectionTo: String?
    /// When the transfer was first stopped to wait for another's new connection, kept across
    /// its restarts until libcurl chooses a connection for it: the wait counts toward its
    /// connect timeout (see ``SharedConnectionOpenings/connectTimeLeft(waited:connectTimeout:)``).
    private(set) var waitingForConnectionSince: MonotonicInstant?
    /// This attempt's connect timeout where waiting for another's connection cut it (see
    /// ``connectionWaitEnded(at:connectTimeout:cuts:)``); `nil` when it is the settings'.
    private(set) var connectTimeoutCut: Duration?
    /// The connection the request went out on multiplexes (HTTP/2).
    private(set) var connectionMultiplexed = false
    /// Times the transfer started over after a framing error.
    private(set) var restartsAfterFramingError = 0
    /// Times the transfer started over after its reused connection died before any answer.
    private(set) var restartsOnDeadConnection = 0
    /// The transfer goes to an advertised HTTP/3 alternative (`Alt-Svc`) rather than the origin.
    private(set) var goesToAlternative = false
    /// The alternative failed and the transfer went to the origin: it tries no other.
    private(set) var fellBackFromAlternative = false
    /// When libcurl began connecting for this attempt (a name lookup started, or a socket
    /// opened), `nil` before.
    private(set) var connectingBegan: MonotonicInstant?

    init(method: HTTPMethod, isRepeatable: Bool, bodyIsOneTimeStream: Bool) {
        self.method = method
        self.isRepeatable = isRepeatable
        self.bodyIsOneTimeStream = bodyIsOneTimeStream
    }

    /// The status of the last head (0 before any): an interim 1xx until the final one comes.
    var statusCode: Int { head.statusCode }

    /// Any of the answer arrived: a status line, or body bytes.
    var responseStarted: Bool { statusCode != 0 || bodyBytesTaken > 0 }

    /// This attempt left libcurl's queue of transfers waiting for a connection: libcurl began
    /// connecting for it, or chose it a connection.
    var leftConnectionQueue: Bool { connectingBegan != nil || connectionsChosen > 0 }

    /// The head or the body was refused: the transfer fails whatever libcurl reports.
    var refusedAnswer: Bool { headProblem != nil || decodingFailure != nil || bodyTooLarge }
}

// MARK: The answer

extension TransferState {
    /// A header line from libcurl, read by the head parser: what it was, or `nil` when the head
    /// is refused (the transfer stops, and ends with the problem).
    @inline(__always)
    mutating func headerLine(_ bytes: UnsafeRawBufferPointer) -> ResponseHeadParser.Line? {
        let line: ResponseHeadParser.Line
        do {
            line = try head.read(bytes)
        } catch {
            headProblem = error
            return nil
        }
        // A new head: an interim 1xx or a proxy's answer to CONNECT came before.
        if case .status = line { responseIsHTTP2 = ResponseHeadParser.isHTTP2StatusLine(bytes) }
        return line
    }

    /// The transfer refused the head for `problem` (found outside the parser: a status line that
    /// says HTTP/2 on an HTTP/1 connection).
    mutating func refuseHead(_ problem: ResponseHeadParser.Problem) {
        headProblem = problem
    }

    /// The head announced a body of `length` bytes, to be kept in memory up to `maximum`: whether
    /// it fits. A body that cannot come (a `204`, a redirect's, a HEAD's) always does.
    mutating func announcedBodyFits(length: Int, maximum: Int) -> Bool {
        guard length > maximum, statusCode != 204, !(300..<400).contains(statusCode), method != .head else {
            return true
        }
        bodyTooLarge = true
        return false
    }

    /// The body went past the configured limit; the transfer stops.
    mutating func bodyWentPastLimit() {
        bodyTooLarge = true
    }

    /// The body's framing or content coding failed; the transfer stops.
    mutating func decodingFailed(_ failure: BodyDecoder.Failure) {
        decodingFailure = failure
    }

    /// The transfer took `count` body bytes while its request body is going out: whether the
    /// exchange is now over, answered whole over HTTP/2 before the request body was sent (the
    /// transfer stops, and ends as a success). HTTP/2 lets a server answer before it has read the
    /// whole body and then reset the stream (RFC 9113 section 8.1: "a complete response ... prior
    /// to ... the request"); libcurl 7.88 keeps trying to send the rest into a stream the server
    /// no longer reads, until the timeout. HTTP/1.1 servers close the connection instead, which
    /// ends the upload.
    ///
    /// `isBodySent` asks libcurl how much of the body went out; it is read only when the answer
    /// is whole. Also the event for a head that ended (`count` 0): a body-less answer can be
    /// whole then.
    mutating func bodyTaken(_ count: Int, isBodySent: () -> Bool) -> Bool {
        bodyBytesTaken += count
        guard responseIsHTTP2, head.isComplete else { return false }
        let length = head.contentLength ?? (statusCode == 204 || statusCode == 304 ? 0 : nil)
        guard let length, bodyBytesTaken >= length, !isBodySent() else { return false }
        answeredBeforeBodySent = true
        return true
    }
}

// MARK: The connection

extension TransferState {
    /// libcurl chose a connection and is about to send the request on it: whether it may. A
    /// second connection for one attempt is libcurl sending the request again after a connection
    /// died or a stream was refused, refused for a request that may not be repeated (see
    /// ``ResendDecision/refusesResend(connectionsChosen:isRepeatable:answersChallenge:)``).
    /// `answersChallenge` (read only for a second connection): the last answer was a whole
    /// authentication challenge the transfer has credentials for.
    mutating func connectionChosen(answersChallenge: @autoclosure () -> Bool) -> Bool {
        connectionsChosen += 1
        waitingForConnectionSince = nil
        guard connectionsChosen > 1 else { return true }
        if ResendDecision.refusesResend(
            connectionsChosen: connectionsChosen, isRepeatable: isRepeatable, answersChallenge: answersChallenge())
        {
            refusedResend = true
            return false
        }
        return true
    }

    /// The transport stopped the request from going out on the connection libcurl chose (it had
    /// unread bytes, had not proved it multiplexes, or did not suit an h2c ask): the transfer
    /// starts over on a new one.
    mutating func connectionRefused() {
        needsFreshConnection = true
    }

    /// The request goes out on the chosen connection, which multiplexes or not.
    mutating func connectionAccepted(multiplexes: Bool) {
        connectionMultiplexed = multiplexes
    }

    /// The transfer was stopped at `now` as it opened a connection to `origin`, to wait for the
    /// one another transfer is opening there.
    mutating func waitsForConnection(to origin: String, at now: MonotonicInstant) {
        waitsForConnectionTo = origin
        if waitingForConnectionSince == nil { waitingForConnectionSince = now }
    }

    /// What the end of a wait for another's new connection leaves the transfer.
    enum WaitEnd: Equatable {
        /// It goes to libcurl again, to connect within what the wait left of its connect timeout
        /// (`nil`: the timeout it had).
        case connects(within: Duration?)
        /// The wait, this long, used up its connect timeout: the transfer fails.
        case timedOut(waited: Duration)
    }

    /// The connection the transfer waited for is ready, or its opener ended, at `now`: the wait
    /// counts toward `connectTimeout` (see
    /// ``SharedConnectionOpenings/connectTimeLeft(waited:connectTimeout:)``). `cuts`: the next
    /// attempt connects within what is left (a transfer to an HTTP/3 alternative keeps its
    /// fallback's bound instead).
    mutating func connectionWaitEnded(at now: MonotonicInstant, connectTimeout: Duration, cuts: Bool) -> WaitEnd {
        guard let since = waitingForConnectionSince else { return .connects(within: nil) }
        guard let left = SharedConnectionOpenings.connectTimeLeft(waited: now - since, connectTimeout: connectTimeout)
        else { return .timedOut(waited: now - since) }
        guard cuts else { return .connects(within: nil) }
        connectTimeoutCut = left
        return .connects(within: left)
    }

    /// Whether the transfer may be stopped to wait for another's new connection (see
    /// ``ResendDecision/mayWaitForSharedConnection(connectionsChosen:isRepeatable:)``).
    var mayWaitForSharedConnection: Bool {
        ResendDecision.mayWaitForSharedConnection(connectionsChosen: connectionsChosen, isRepeatable: isRepeatable)
    }
}

// MARK: The end

extension TransferState {
    /// What libcurl reported when it ended the transfer, and what the transfer read from its
    /// resources then.
    struct End: Equatable {
        /// libcurl's result.
        var code: CURLcode
        /// Bytes of the request that went out (the head's included), as libcurl counts them.
        var bytesSent: Int
        /// Any byte of the request went out.
        var requestSent: Bool
        /// The transfer ran on a connection an earlier one had used.
        var connectionWasReused: Bool
        /// The state of a chunked or compressed body's decoder.
        var decoding: Decoding = .none
        /// The streamed request body failed on its own (the sequence threw, or broke its size).
        var streamedBodyFailed = false
        /// The file the body went to failed.
        var sinkFailed = false
        /// The transfer opened a WebSocket's connection (`CURLOPT_CONNECT_ONLY`).
        var opensWebSocket = false
        /// For a transfer that timed out (`CURLE_OPERATION_TIMEDOUT`), the time its own timeout
        /// has left; read for no other.
        var timeLeft: Duration = .zero
        /// For a transfer that timed out, how long libcurl had been connecting for this attempt
        /// (`nil`: it never began); read for no other.
        var connectingLasted: Duration?
        /// For a transfer that timed out, the connect timeout its settings give (libcurl's 300 s
        /// for "never"). An attempt at an HTTP/3 alternative connects within the shorter of this
        /// and its fallback delay, but one that timed out before a connection was chosen falls
        /// back to the origin before the queue rule reads this value.
        var connectTimeout: Duration = .zero
        /// For a transfer that timed out, whether a connection another transfer was opening to
        /// its origin was in progress, or failed within its connect timeout before; read for no
        /// other.
        var waitedForOpening = false
    }

    /// Where a chunked or compressed body's decoder stands.
    enum Decoding: Equatable {
        /// The body is neither chunked nor compressed.
        case none
        /// Its framing or stream ended.
        case complete
        /// It took bytes, and its framing or stream has not ended.
        case unfinished
        /// It took nothing (an empty body, or a HEAD).
        case untouched
    }

    /// What the transfer does when libcurl ends it.
    enum EndAction: Equatable {
        /// The WebSocket's connection is open: the handshake goes out on it.
        case openWebSocket
        /// Start over, as ``Restart`` says.
        case restart(Restart)
        /// Deliver the response, or fail.
        case settle(Settlement)
    }

    /// How a transfer starts over.
    struct Restart: Equatable {
        /// Why: the connection it goes out on follows from it
        /// (``ResendDecision/restartConnection(after:)``).
        var cause: ResendDecision.RestartCause
        /// The body must rewind for the restart; one that cannot ends the transfer instead
        /// (``bodyDidNotRewind(_:)``). Otherwise the handle is reset only when the body rewinds
        /// (libcurl 7.88 keeps a count of resends across a remove and add that a reset clears),
        /// and keeps its options when it does not.
        var requiresRewind: Bool
        /// The origin whose new connection the transfer waits for before it goes to libcurl again.
        var waitsForConnectionTo: String?
    }

    /// How a transfer that does not start over ends.
    enum Settlement: Equatable {
        /// The response is delivered (a file destination's own failure may still fail it).
        case succeed
        /// The transfer fails.
        case fail(Failure)
    }

    /// Why a transfer fails.
    enum Failure: Equatable {
        /// A failure Connect found: the response or the resend.
        case transport(TransportFailure)
        /// The streamed request body's own error.
        case streamedBody
        /// The file sink's own error.
        case sink
        /// The body went past the configured limit.
        case responseTooLarge
        /// libcurl's code, read by ``ConnectError/init(curlCode:message:requestSent:)``.
        case libcurl(CURLcode)
    }

    /// libcurl ended the transfer: start over, open the WebSocket, or settle. A WebSocket's
    /// connection never starts over (nothing went out that a restart would send again).
    mutating func ended(_ end: End) -> EndAction {
        if _slowPath(end.opensWebSocket) {
            if end.code == CURLE_OK { return .openWebSocket }
        } else if _slowPath(end.code != CURLE_OK), let restart = restart(after: end) {
            return .restart(restart)
        }
        return .settle(settled(end))
    }

    /// A restart that required the body to rewind could not have it: the transfer settles as if
    /// it had not started over.
    func bodyDidNotRewind(_ end: End) -> Settlement {
        settled(end)
    }

    /// The transfer starts over: what the last attempt saw of the answer and its connection is
    /// forgotten (nothing of the answer arrived, or it would not start over); the restart counts
    /// stay.
    mutating func startsOver() {
        head = ResponseHeadParser()
        responseIsHTTP2 = false
        bodyBytesTaken = 0
        connectionsChosen = 0
        needsFreshConnection = false
        waitsForConnectionTo = nil
        connectTimeoutCut = nil
        connectionMultiplexed = false
        connectingBegan = nil
    }

    /// Whether the transfer libcurl ended with `end.code` starts over: its HTTP/3 alternative
    /// failed, it was stopped to wait for another's connection, it timed out in libcurl's queue
    /// before it began connecting, it was stopped from going out on the connection libcurl chose,
    /// or (as ``ResendDecision`` allows) after a framing error or its reused connection died
    /// before any of the answer came.
    private mutating func restart(after end: End) -> Restart? {
        if _slowPath(goesToAlternative),
            ResendDecision.fallsBackFromAlternative(end.code, connectionsChosen: connectionsChosen)
        {
            goesToAlternative = false
            fellBackFromAlternative = true
            return Restart(cause: .alternativeFailed, requiresRewind: false)
        }
        if let origin = waitsForConnectionTo {
            return Restart(cause: .waitedForSharedConnection, requiresRewind: false, waitsForConnectionTo: origin)
        }
        if _slowPath(end.code == CURLE_OPERATION_TIMEDOUT),
            ResendDecision.startsOverAfterWaitingInQueue(
                end.code, connectingLasted: end.connectingLasted, connectionChosen: connectionsChosen > 0,
                connectTimeout: end.connectTimeout, timeLeft: end.timeLeft, waitedForOpening: end.waitedForOpening)
        {
            return Restart(cause: .timedOutInQueue, requiresRewind: false)
        }
        if end.code == CURLE_ABORTED_BY_CALLBACK, needsFreshConnection {
            return Restart(cause: .connectionRefused, requiresRewind: false)
        }
        if end.code == CURLE_HTTP2,
            ResendDecision.startsOverAfterFramingError(
                responseStarted: statusCode != 0, isRepeatable: isRepeatable, restartsSoFar: restartsAfterFramingError)
        {
            restartsAfterFramingError += 1
            return Restart(cause: .connectionEnded(multiplexed: true), requiresRewind: true)
        }
        if ResendDecision.endsWithDeadConnection(end.code),
            ResendDecision.startsOverOnDeadConnection(
                connectionWasReused: end.connectionWasReused, responseStarted: responseStarted,
                isRepeatable: isRepeatable, restartsSoFar: restartsOnDeadConnection)
        {
            restartsOnDeadConnection += 1
            return Restart(cause: .connectionEnded(multiplexed: connectionMultiplexed), requiresRewind: true)
        }
        return nil
    }

    /// libcurl began connecting for the transfer at `now`: it started a name lookup or opened a
    /// socket. The first of an attempt's lookups and sockets counts.
    mutating func connectingBegan(at now: MonotonicInstant) {
        if connectingBegan == nil { connectingBegan = now }
    }

    /// The transfer goes to an advertised HTTP/3 alternative: if that fails before a connection
    /// is chosen, it starts over to the origin (see
    /// ``ResendDecision/fallsBackFromAlternative(_:connectionsChosen:)``).
    mutating func headsForAlternative() {
        goesToAlternative = true
    }

    /// The success or failure the transfer ends with.
    func settled(_ end: End) -> Settlement {
        // Stopped from a callback with the whole answer in hand: a success.
        let code = answeredBeforeBodySent && end.code == CURLE_WRITE_ERROR ? CURLE_OK : end.code
        if end.streamedBodyFailed { return .fail(.streamedBody) }
        if let failure = connectsOwnFailure(code, end) { return .fail(.transport(failure)) }
        guard code == CURLE_OK else {
            if end.sinkFailed { return .fail(.sink) }
            if bodyTooLarge { return .fail(.responseTooLarge) }
            return .fail(.libcurl(code))
        }
        return .succeed
    }

    /// The failures Connect finds itself, which libcurl 7.88 lets through or reports as
    /// something else: a response it refused, a resend it stopped, a compressed body that is cut
    /// off or corrupt, a head that never ended, a reply that is not HTTP.
    private func connectsOwnFailure(_ code: CURLcode, _ end: End) -> TransportFailure? {
        if let headProblem {
            return TransportFailure(.malformedResponse, "Malformed response: \(headProblem)")
        }
        if refusedResend {
            return TransportFailure(
                .connectionClosed,
                "The connection closed before a response; the request may have reached the server, and a \(method) is not sent again unless it allows retries"
            )
        }
        if let decodingFailure {
            return TransportFailure(.malformedResponse, "Malformed response: \(decodingFailure)")
        }
        guard code == CURLE_OK else { return failureLibcurlReportsVaguely(code, end) }
        if !head.isComplete {
            return TransportFailure(
                .truncatedResponse, "Truncated response: the connection closed inside the response head")
        }
        if end.decoding == .unfinished {
            return TransportFailure(
                .truncatedResponse,
                "Truncated response: the body ends before its chunked framing or compressed stream does")
        }
        return nil
    }

    /// Connect's reading of a failure libcurl 7.88 reports by a code that says less than it
    /// knows, or `nil` to let libcurl's code speak.
    private func failureLibcurlReportsVaguely(_ code: CURLcode, _ end: End) -> TransportFailure? {
        if ResendDecision.endsWithDeadConnection(code), end.connectionWasReused, !responseStarted, end.requestSent {
            return TransportFailure(
                .connectionClosed,
                "The reused connection closed before any answer; the request may have reached the server, and a \(method) is not sent again unless it allows retries"
            )
        }
        if code == CURLE_SEND_FAIL_REWIND, bodyIsOneTimeStream {
            return TransportFailure(
                .bodyNotReplayable,
                "libcurl had to send the request body again, and it is a one-time stream that was already read",
                requestSent: end.requestSent)
        }
        if code == CURLE_BAD_FUNCTION_ARGUMENT, statusCode != 0 {
            // libcurl's header store refuses a line it cannot split into a name and a value (a
            // trailer without a colon, a folded line with no field before it) before Connect's
            // callback sees it.
            return TransportFailure(.malformedResponse, "Malformed response: a header or trailer line is not a field")
        }
        if code == CURLE_UNSUPPORTED_PROTOCOL, end.requestSent {
            return TransportFailure(.malformedResponse, "Malformed response: the reply is not HTTP")
        }
        return nil
    }
}
