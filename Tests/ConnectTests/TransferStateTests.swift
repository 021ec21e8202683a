import CCurl
import Testing

@testable import Connect
@testable import ConnectWire

/// One HTTP transfer as a value, without a socket: the events libcurl's callbacks and its end
/// bring (header lines, body bytes, connections chosen and refused), in order, and the action
/// the end calls for (settle with a success or a failure, start over, open a WebSocket). The
/// rows are the endings and restarts the fault suite, the wire tests and the restart tests reach
/// (`FaultSuiteTests`, `WireTests`, `HTTPVersionTests`, `ConnectionSharingTests`), with the
/// combinations whose order matters.
@Suite("Transfer state")
struct TransferStateTests {
    /// An event on a transfer's state before it ends.
    enum Event: Sendable, CustomStringConvertible {
        /// A header line, without its CRLF ("" for the blank line that ends a head).
        case header(String)
        /// The whole head of a `200` over HTTP/1.1 with `fields`.
        case head200(_ fields: [String] = [])
        case refuseHead(ResponseHeadParser.Problem)
        case decodingFailed(BodyDecoder.Failure)
        case bodyPastLimit
        /// Body bytes taken while the request body goes out, and whether libcurl sent all of it.
        case bodyTaken(Int, bodySent: Bool)
        case connectionChosen(answersChallenge: Bool = false)
        case connectionRefused
        case connectionAccepted(multiplexes: Bool)
        case waitsForConnection(String)
        /// The transfer goes to an advertised HTTP/3 alternative.
        case headsForAlternative
        /// libcurl started a name lookup or opened a socket for it.
        case connectingBegan

        var description: String {
            switch self {
            case .header(let line): "header \(line.debugDescription)"
            case .head200(let fields): "200 head \(fields)"
            case .refuseHead(let problem): "head refused: \(problem)"
            case .decodingFailed(let failure): "decoding failed: \(failure)"
            case .bodyPastLimit: "body past the limit"
            case .bodyTaken(let count, let sent): "\(count) body bytes, request body sent \(sent)"
            case .connectionChosen(let challenge): "connection chosen\(challenge ? ", answering a challenge" : "")"
            case .connectionRefused: "connection refused"
            case .connectionAccepted(let multiplexes): "connection accepted, multiplexes \(multiplexes)"
            case .waitsForConnection(let origin): "waits for \(origin)'s connection"
            case .headsForAlternative: "heads for an alternative"
            case .connectingBegan: "connecting began"
            }
        }
    }

    /// What the end must call for; for Connect's own failures, their kind.
    enum Expected: Sendable, Equatable {
        case openWebSocket
        case restart(TransferState.Restart)
        case succeed, streamedBody, sink, responseTooLarge
        case libcurl(UInt32)
        case failure(TransportFailure.Kind, requestSent: Bool = true)
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var method: HTTPMethod
        var events: [Event]
        var end: TransferState.End
        var expected: Expected

        /// A row whose end is libcurl's `code`, for a request that went out on a new connection,
        /// with `adjust` changing what the end reports.
        init(
            _ name: String, _ method: HTTPMethod = .get, _ events: [Event], _ code: CURLcode, _ expected: Expected,
            _ adjust: (inout TransferState.End) -> Void = { _ in }
        ) {
            self.name = name
            self.method = method
            self.events = events
            var end = TransferState.End(code: code, bytesSent: 40, requestSent: true, connectionWasReused: false)
            adjust(&end)
            self.end = end
            self.expected = expected
        }

        var description: String { name }
    }

    /// A state for `method` (a one-time body when `oneTimeBody`), after `events`.
    static func state(_ method: HTTPMethod, after events: [Event], oneTimeBody: Bool = false) -> TransferState {
        var state = TransferState(method: method, isRepeatable: method.isIdempotent, bodyIsOneTimeStream: oneTimeBody)
        for event in events { apply(event, to: &state) }
        return state
    }

    static func apply(_ event: Event, to state: inout TransferState) {
        switch event {
        case .header(let line):
            var bytes = Array((line + "\r\n").utf8)
            _ = bytes.withUnsafeMutableBytes { state.headerLine(UnsafeRawBufferPointer($0)) }
        case .head200(let fields):
            for line in ["HTTP/1.1 200 OK"] + fields + [""] { apply(.header(line), to: &state) }
        case .refuseHead(let problem): state.refuseHead(problem)
        case .decodingFailed(let failure): state.decodingFailed(failure)
        case .bodyPastLimit: state.bodyWentPastLimit()
        case .bodyTaken(let count, let sent): _ = state.bodyTaken(count, isBodySent: { sent })
        case .connectionChosen(let challenge): _ = state.connectionChosen(answersChallenge: challenge)
        case .connectionRefused: state.connectionRefused()
        case .connectionAccepted(let multiplexes): state.connectionAccepted(multiplexes: multiplexes)
        case .waitsForConnection(let origin): state.waitsForConnection(to: origin, at: MonotonicInstant(nanoseconds: 0))
        case .headsForAlternative: state.headsForAlternative()
        case .connectingBegan: state.connectingBegan(at: .now)
        }
    }

    static func actual(_ action: TransferState.EndAction) -> Expected? {
        switch action {
        case .openWebSocket: return .openWebSocket
        case .restart(let restart): return .restart(restart)
        case .settle(let settlement): return actual(settlement)
        }
    }

    static func actual(_ settlement: TransferState.Settlement) -> Expected? {
        switch settlement {
        case .succeed: return .succeed
        case .fail(.streamedBody): return .streamedBody
        case .fail(.sink): return .sink
        case .fail(.responseTooLarge): return .responseTooLarge
        case .fail(.libcurl(let code)): return .libcurl(code.rawValue)
        case .fail(.transport(let failure)):
            #expect(failure.curlCode == nil, "Connect's own finding carries no curl code")
            return .failure(failure.kind, requestSent: failure.requestSent)
        }
    }

    static let ok = [Event.connectionChosen(), .head200()]
    static let nothingCame = [Event.connectionChosen()]
    static let h2Answer = [
        Event.connectionChosen(), .header("HTTP/2 200"), .header("content-length: 3"), .header(""),
        .bodyTaken(3, bodySent: false)
    ]

    static let rows: [Row] = [
        // A plain success, and the successes that need a look.
        Row("success", .get, ok, CURLE_OK, .succeed),
        Row("an empty chunked or compressed body", .get, ok, CURLE_OK, .succeed) { $0.decoding = .untouched },
        Row("a chunked body whose framing ended", .get, ok, CURLE_OK, .succeed) { $0.decoding = .complete },
        Row("HTTP/2 answer before the whole request body went out", .post, h2Answer, CURLE_WRITE_ERROR, .succeed),
        Row(
            "answered early, but the stream then failed", .post, h2Answer, CURLE_HTTP2_STREAM,
            .libcurl(CURLE_HTTP2_STREAM.rawValue)),
        Row(
            "the whole HTTP/2 answer after the request body went out is no early answer", .post,
            [
                .connectionChosen(), .header("HTTP/2 200"), .header("content-length: 3"), .header(""),
                .bodyTaken(3, bodySent: true)
            ],
            CURLE_WRITE_ERROR, .libcurl(CURLE_WRITE_ERROR.rawValue)),
        Row(
            "an HTTP/1.1 answer is never early", .post,
            [.connectionChosen(), .head200(["Content-Length: 3"]), .bodyTaken(3, bodySent: false)],
            CURLE_WRITE_ERROR, .libcurl(CURLE_WRITE_ERROR.rawValue)),

        // Connect's findings, whatever libcurl then reported.
        Row(
            "a status line the parser refused", .get, [.connectionChosen(), .header("HTTP/1.1 2000 OK")],
            CURLE_WRITE_ERROR, .failure(.malformedResponse)),
        Row(
            "a head refused, libcurl saw success", .get,
            [.connectionChosen(), .header("HTTP/1.1 200 OK"), .header("X-A: 1\r2"), .header("")], CURLE_OK,
            .failure(.malformedResponse)),
        Row(
            "Content-Length values that disagree", .get,
            [.connectionChosen(), .head200(["Content-Length: 1", "Content-Length: 2"])], CURLE_WRITE_ERROR,
            .failure(.malformedResponse)),
        Row(
            "an HTTP/2 status on an HTTP/1 connection", .get,
            [.connectionChosen(), .header("HTTP/2 200"), .refuseHead(.http2StatusOnHTTP1Connection)],
            CURLE_WRITE_ERROR, .failure(.malformedResponse)),
        Row(
            "a head refused and a resend refused: the head", .post,
            [.connectionChosen(), .refuseHead(.conflictingContentLengths), .connectionChosen()],
            CURLE_ABORTED_BY_CALLBACK, .failure(.malformedResponse)),
        Row(
            "a resend of a POST refused", .post, [.connectionChosen(), .connectionChosen()], CURLE_ABORTED_BY_CALLBACK,
            .failure(.connectionClosed)),
        Row(
            "a resend of a GET goes", .get, [.connectionChosen(), .connectionChosen(), .head200()], CURLE_OK, .succeed),
        Row(
            "a POST's resend that answers a challenge goes", .post,
            [
                .connectionChosen(), .header("HTTP/1.1 401 Unauthorized"), .header(""),
                .connectionChosen(answersChallenge: true), .head200()
            ],
            CURLE_OK, .succeed),
        Row(
            "a chunked body malformed", .get, ok + [.decodingFailed(.chunked(.malformedChunkSize))], CURLE_WRITE_ERROR,
            .failure(.malformedResponse)),
        Row(
            "a malformed body on a head already refused: the head", .get,
            [.connectionChosen(), .refuseHead(.headTooLarge), .decodingFailed(.chunked(.missingLineEnd))],
            CURLE_WRITE_ERROR, .failure(.malformedResponse)),

        // A reused connection that died before any answer, for a request that may not go again.
        Row(
            "reused connection closed, nothing came", .post, nothingCame, CURLE_PARTIAL_FILE,
            .failure(.connectionClosed)
        ) {
            $0.connectionWasReused = true
        },
        Row("reused connection reset, nothing came", .post, nothingCame, CURLE_RECV_ERROR, .failure(.connectionClosed))
        {
            $0.connectionWasReused = true
        },
        Row("reused connection, got nothing", .post, nothingCame, CURLE_GOT_NOTHING, .failure(.connectionClosed)) {
            $0.connectionWasReused = true
        },
        Row(
            "reused connection died before the request went out", .post, nothingCame, CURLE_SEND_ERROR,
            .libcurl(CURLE_SEND_ERROR.rawValue)
        ) {
            $0.connectionWasReused = true
            $0.requestSent = false
        },
        Row(
            "a new connection closed before any answer", .get, nothingCame, CURLE_PARTIAL_FILE,
            .libcurl(CURLE_PARTIAL_FILE.rawValue)),
        Row(
            "reused connection closed mid-answer", .get, [.connectionChosen(), .header("HTTP/1.1 200 OK")],
            CURLE_PARTIAL_FILE, .libcurl(CURLE_PARTIAL_FILE.rawValue)
        ) { $0.connectionWasReused = true },
        Row(
            "a stream the server reset", .get, nothingCame, CURLE_HTTP2_STREAM, .libcurl(CURLE_HTTP2_STREAM.rawValue)
        ) { $0.connectionWasReused = true },

        // What libcurl 7.88 reports vaguely.
        Row(
            "a replayable body libcurl could not rewind", .post, nothingCame, CURLE_SEND_FAIL_REWIND,
            .libcurl(CURLE_SEND_FAIL_REWIND.rawValue)),
        Row("a trailer line without a colon", .get, ok, CURLE_BAD_FUNCTION_ARGUMENT, .failure(.malformedResponse)),
        Row(
            "a bad option before any answer", .get, [], CURLE_BAD_FUNCTION_ARGUMENT,
            .libcurl(CURLE_BAD_FUNCTION_ARGUMENT.rawValue)),
        Row("a reply that is not HTTP", .get, nothingCame, CURLE_UNSUPPORTED_PROTOCOL, .failure(.malformedResponse)),
        Row(
            "a URL libcurl does not speak", .get, [], CURLE_UNSUPPORTED_PROTOCOL,
            .libcurl(CURLE_UNSUPPORTED_PROTOCOL.rawValue)
        ) { $0.requestSent = false },

        // libcurl saw success; Connect sees the response cut short.
        Row(
            "the connection closed inside the head", .get, [.connectionChosen(), .header("HTTP/1.1 200 OK")], CURLE_OK,
            .failure(.truncatedResponse)),
        Row("a chunked or compressed body cut off", .get, ok, CURLE_OK, .failure(.truncatedResponse)) {
            $0.decoding = .unfinished
        },
        Row("cut off, and libcurl saw it too", .get, ok, CURLE_PARTIAL_FILE, .libcurl(CURLE_PARTIAL_FILE.rawValue)) {
            $0.decoding = .unfinished
        },

        // The body's and the sink's own failures, and the size limit.
        Row("the body sequence threw", .post, ok, CURLE_ABORTED_BY_CALLBACK, .streamedBody) {
            $0.streamedBodyFailed = true
        },
        Row(
            "the body sequence threw, even with a refused head", .post,
            [.connectionChosen(), .refuseHead(.malformedStatusLine)],
            CURLE_ABORTED_BY_CALLBACK, .streamedBody
        ) { $0.streamedBodyFailed = true },
        Row("the file could not be written", .get, ok, CURLE_WRITE_ERROR, .sink) { $0.sinkFailed = true },
        Row("the body past the limit", .get, ok + [.bodyPastLimit], CURLE_WRITE_ERROR, .responseTooLarge),
        Row("a sink failure and the limit: the sink", .get, ok + [.bodyPastLimit], CURLE_WRITE_ERROR, .sink) {
            $0.sinkFailed = true
        },
        Row("a sink failure on a success is the sink's to report", .get, ok, CURLE_OK, .succeed) {
            $0.sinkFailed = true
        },

        // libcurl's own failures, read by ConnectError.
        Row("connection refused", .get, [], CURLE_COULDNT_CONNECT, .libcurl(CURLE_COULDNT_CONNECT.rawValue)) {
            $0.requestSent = false
        },
        Row("timed out", .get, ok, CURLE_OPERATION_TIMEDOUT, .libcurl(CURLE_OPERATION_TIMEDOUT.rawValue)),
        Row("a framing error after the answer began", .get, ok, CURLE_HTTP2, .libcurl(CURLE_HTTP2.rawValue)),
        Row("a framing error on a POST", .post, nothingCame, CURLE_HTTP2, .libcurl(CURLE_HTTP2.rawValue)),
        // libcurl 8's CURLE_TOO_LARGE (100), which 7.88's headers do not name.
        Row("a head over libcurl 8's limit", .get, ok, CURLcode(rawValue: 100), .libcurl(100)),

        // Starting over.
        Row(
            "stopped to wait for another's connection", .post, [.waitsForConnection("http://a:80")],
            CURLE_COULDNT_CONNECT,
            .restart(
                .init(cause: .waitedForSharedConnection, requiresRewind: false, waitsForConnectionTo: "http://a:80"))
        ) { $0.requestSent = false },
        Row(
            "stopped from going out on the connection libcurl chose", .post, [.connectionChosen(), .connectionRefused],
            CURLE_ABORTED_BY_CALLBACK, .restart(.init(cause: .connectionRefused, requiresRewind: false))
        ) { $0.requestSent = false },
        Row(
            "a refused connection with another code settles", .get, [.connectionChosen(), .connectionRefused],
            CURLE_OPERATION_TIMEDOUT, .libcurl(CURLE_OPERATION_TIMEDOUT.rawValue)),
        Row(
            "a framing error before any answer", .get, nothingCame, CURLE_HTTP2,
            .restart(.init(cause: .connectionEnded(multiplexed: true), requiresRewind: true))),
        Row(
            "a reused HTTP/1.1 connection died before any answer", .get,
            [.connectionChosen(), .connectionAccepted(multiplexes: false)], CURLE_PARTIAL_FILE,
            .restart(.init(cause: .connectionEnded(multiplexed: false), requiresRewind: true))
        ) { $0.connectionWasReused = true },
        Row(
            "a reused HTTP/2 connection died before any answer", .get,
            [.connectionChosen(), .connectionAccepted(multiplexes: true)], CURLE_RECV_ERROR,
            .restart(.init(cause: .connectionEnded(multiplexed: true), requiresRewind: true))
        ) { $0.connectionWasReused = true },
        Row(
            "a POST with an early HTTP/2 answer does not start over", .post, h2Answer, CURLE_RECV_ERROR,
            .libcurl(CURLE_RECV_ERROR.rawValue)
        ) { $0.connectionWasReused = true },

        // An advertised HTTP/3 alternative: one that fails before a connection falls back to the
        // origin, nothing having gone out; one that failed on its connection does not.
        Row(
            "an alternative that does not answer", .post, [.headsForAlternative], CURLE_OPERATION_TIMEDOUT,
            .restart(.init(cause: .alternativeFailed, requiresRewind: false))
        ) { $0.requestSent = false },
        Row(
            "an alternative whose handshake fails", .get, [.headsForAlternative], CURLE_QUIC_CONNECT_ERROR,
            .restart(.init(cause: .alternativeFailed, requiresRewind: false))
        ) { $0.requestSent = false },
        Row(
            "an alternative whose certificate is refused", .get, [.headsForAlternative],
            CURLE_PEER_FAILED_VERIFICATION, .restart(.init(cause: .alternativeFailed, requiresRewind: false))
        ) { $0.requestSent = false },
        Row(
            "an alternative that failed after its connection was chosen", .post,
            [.headsForAlternative, .connectionChosen()], CURLE_RECV_ERROR, .libcurl(CURLE_RECV_ERROR.rawValue)),
        Row(
            "a cancelled transfer to an alternative", .get, [.headsForAlternative], CURLE_ABORTED_BY_CALLBACK,
            .libcurl(CURLE_ABORTED_BY_CALLBACK.rawValue)
        ) { $0.requestSent = false },
        Row(
            "the origin without an alternative does not answer", .get, [], CURLE_COULDNT_CONNECT,
            .libcurl(CURLE_COULDNT_CONNECT.rawValue)
        ) { $0.requestSent = false },

        // A timeout in libcurl's queue, before connecting began or soon after, goes back into the
        // queue while the request's own timeout has time left; a timeout of a connect that had
        // most of the connect timeout, or with none left, fails.
        Row(
            "a POST timed out waiting for a connection", .post, [], CURLE_OPERATION_TIMEDOUT,
            .restart(.init(cause: .timedOutInQueue, requiresRewind: false))
        ) {
            $0.requestSent = false
            $0.timeLeft = .seconds(30)
        },
        Row(
            "a timeout while connecting", .get, [.connectingBegan], CURLE_OPERATION_TIMEDOUT,
            .libcurl(CURLE_OPERATION_TIMEDOUT.rawValue)
        ) {
            $0.requestSent = false
            $0.timeLeft = .seconds(30)
            $0.connectingLasted = .seconds(10)
            $0.connectTimeout = .seconds(10)
        },
        Row(
            "a timeout just after it left the queue and began connecting", .post, [.connectingBegan],
            CURLE_OPERATION_TIMEDOUT, .restart(.init(cause: .timedOutInQueue, requiresRewind: false))
        ) {
            $0.requestSent = false
            $0.timeLeft = .seconds(30)
            $0.connectingLasted = .milliseconds(6)
            $0.connectTimeout = .seconds(10)
        },
        Row(
            "a timeout once a connection was chosen", .get, nothingCame, CURLE_OPERATION_TIMEDOUT,
            .libcurl(CURLE_OPERATION_TIMEDOUT.rawValue)
        ) { $0.timeLeft = .seconds(30) },
        Row(
            "a timeout in the queue with no time left", .get, [], CURLE_OPERATION_TIMEDOUT,
            .libcurl(CURLE_OPERATION_TIMEDOUT.rawValue)
        ) { $0.requestSent = false },

        // A WebSocket's connection.
        Row("a WebSocket's connection opened", .get, [], CURLE_OK, .openWebSocket) { $0.opensWebSocket = true },
        Row(
            "a WebSocket's connection failed: never a restart", .get, [.connectionChosen(), .connectionRefused],
            CURLE_ABORTED_BY_CALLBACK, .libcurl(CURLE_ABORTED_BY_CALLBACK.rawValue)
        ) { $0.opensWebSocket = true }
    ]

    @Test(arguments: rows)
    func endAction(_ row: Row) {
        var state = Self.state(row.method, after: row.events)
        let action = state.ended(row.end)
        #expect(Self.actual(action) == row.expected)
    }

    @Test func aOneTimeBodyLibcurlHadToSendAgain() {
        var state = Self.state(.post, after: [], oneTimeBody: true)
        let end = TransferState.End(
            code: CURLE_SEND_FAIL_REWIND, bytesSent: 0, requestSent: false, connectionWasReused: false)
        let action = state.ended(end)
        #expect(Self.actual(action) == .failure(.bodyNotReplayable, requestSent: false))
    }

    /// A transfer falls back from its alternative once: the origin's own failure then settles it.
    @Test func aTransferFallsBackFromItsAlternativeOnce() {
        var state = Self.state(.get, after: [.headsForAlternative])
        let end = TransferState.End(
            code: CURLE_COULDNT_CONNECT, bytesSent: 0, requestSent: false, connectionWasReused: false)
        #expect(Self.actual(state.ended(end)) == .restart(.init(cause: .alternativeFailed, requiresRewind: false)))
        state.startsOver()
        #expect(state.fellBackFromAlternative && !state.goesToAlternative)
        #expect(Self.actual(state.ended(end)) == .libcurl(CURLE_COULDNT_CONNECT.rawValue))
    }

    /// A transfer starts over a few times at most, each time from a clean attempt, and then
    /// settles with what the last attempt saw.
    @Test(arguments: [
        (CURLE_HTTP2, false, ResendDecision.maximumRestartsAfterFramingError),
        (CURLE_PARTIAL_FILE, true, ResendDecision.maximumRestartsOnDeadConnection)
    ])
    func restartsAreBounded(code: CURLcode, reused: Bool, maximum: Int) {
        var state = Self.state(.get, after: [])
        let end = TransferState.End(code: code, bytesSent: 40, requestSent: true, connectionWasReused: reused)
        for attempt in 1...maximum {
            _ = state.connectionChosen(answersChallenge: false)
            guard case .restart = state.ended(end) else {
                Issue.record("attempt \(attempt) did not start over")
                return
            }
            state.startsOver()
            #expect(state.connectionsChosen == 0)
        }
        _ = state.connectionChosen(answersChallenge: false)
        let lastAction = state.ended(end)
        let last = Self.actual(lastAction)
        #expect(last == (reused ? .failure(.connectionClosed) : .libcurl(code.rawValue)))
    }

    /// A restart that needs the body again and cannot have it settles as the end would have
    /// without the restart.
    @Test func aBodyThatDidNotRewindSettles() {
        var state = Self.state(.get, after: [.connectionChosen(), .connectionAccepted(multiplexes: false)])
        let end = TransferState.End(
            code: CURLE_GOT_NOTHING, bytesSent: 40, requestSent: true, connectionWasReused: true)
        let action = state.ended(end)
        #expect(
            Self.actual(action) == .restart(.init(cause: .connectionEnded(multiplexed: false), requiresRewind: true)))
        #expect(Self.actual(state.bodyDidNotRewind(end)) == .failure(.connectionClosed))
    }

    /// Starting over forgets the last attempt's head and connection, and keeps the counts.
    @Test func startingOverForgetsTheAttempt() {
        var state = Self.state(
            .get,
            after: [
                .connectionChosen(), .connectionChosen(), .header("HTTP/2 200"), .connectionAccepted(multiplexes: true),
                .waitsForConnection("o")
            ])
        #expect(state.statusCode == 200 && state.responseIsHTTP2 && state.connectionMultiplexed)
        state.startsOver()
        #expect(state.statusCode == 0)
        #expect(!state.responseIsHTTP2 && !state.connectionMultiplexed && !state.needsFreshConnection)
        #expect(state.connectionsChosen == 0 && state.waitsForConnectionTo == nil && !state.responseStarted)
    }

    struct BodySizeCase: Sendable, CustomStringConvertible {
        var method: HTTPMethod
        var status: String
        var length: Int
        var fits: Bool
        var description: String { "\(method) \(status), \(length) bytes → fits \(fits)" }
    }

    /// A head's announced length against a limit of 100 bytes in memory.
    @Test(arguments: [
        BodySizeCase(method: .get, status: "200 OK", length: 100, fits: true),
        BodySizeCase(method: .get, status: "200 OK", length: 101, fits: false),
        BodySizeCase(method: .get, status: "204 No Content", length: 101, fits: true),
        BodySizeCase(method: .get, status: "301 Moved Permanently", length: 101, fits: true),
        BodySizeCase(method: .head, status: "200 OK", length: 101, fits: true),
        BodySizeCase(method: .get, status: "404 Not Found", length: 101, fits: false)
    ])
    func announcedBodyFits(_ row: BodySizeCase) {
        var state = Self.state(row.method, after: [.header("HTTP/1.1 \(row.status)"), .header("")])
        let fits = state.announcedBodyFits(length: row.length, maximum: 100)
        #expect(fits == row.fits)
        #expect(state.bodyTooLarge == !row.fits)
    }

    /// libcurl choosing a connection: a second for one attempt is a resend, which goes only for
    /// a request that may be repeated or that answers a challenge.
    @Test func resendsOnlyWhatMayGoAgain() {
        var get = Self.state(.get, after: [])
        let getFirst = get.connectionChosen(answersChallenge: false)
        let getSecond = get.connectionChosen(answersChallenge: false)
        #expect(getFirst && getSecond && !get.refusedResend)
        var post = Self.state(.post, after: [])
        let postFirst = post.connectionChosen(answersChallenge: false)
        let postSecond = post.connectionChosen(answersChallenge: false)
        #expect(postFirst && !postSecond && post.refusedResend)
        var challenged = Self.state(.post, after: [.connectionChosen()])
        let answering = challenged.connectionChosen(answersChallenge: true)
        #expect(answering && !challenged.refusedResend)
    }

    @Test func theMessagesNameTheMethodAndTheProblem() {
        var post = Self.state(.post, after: [.connectionChosen(), .connectionChosen()])
        let end = TransferState.End(
            code: CURLE_ABORTED_BY_CALLBACK, bytesSent: 40, requestSent: true, connectionWasReused: false)
        guard case .settle(.fail(.transport(let resend))) = post.ended(end) else {
            Issue.record("expected a refused resend")
            return
        }
        #expect(resend.message.contains("a POST is not sent again"))

        var get = Self.state(.get, after: Self.ok + [.decodingFailed(.chunked(.malformedChunkSize))])
        guard case .settle(.fail(.transport(let malformed))) = get.ended(end) else {
            Issue.record("expected a malformed body")
            return
        }
        #expect(malformed.message.hasPrefix("Malformed response: the chunked body is malformed"))
    }
}
