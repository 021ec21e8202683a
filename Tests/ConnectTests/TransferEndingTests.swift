import CCurl
import Testing

@testable import Connect

/// How a transfer ends, without a socket: libcurl's code and what the callbacks observed, in;
/// the outcome, out. The rows are the endings the fault suite and the wire tests reach, with the
/// combinations whose order matters.
@Suite("Transfer endings")
struct TransferEndingTests {
    /// One ending and what it must give: an outcome, or for Connect's own failures their kind.
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var ending: TransferEnding
        var expected: Expected

        enum Expected: Sendable, Equatable {
            case success, streamedBodyFailure, sinkFailure, responseTooLarge
            case libcurl(UInt32)
            case failure(TransportFailure.Kind, requestSent: Bool = true)
        }

        init(
            _ name: String, _ code: CURLcode, _ expected: Expected, _ observe: (inout TransferEnding) -> Void = { _ in }
        ) {
            self.name = name
            var ending = TransferEnding(code: code, method: "GET")
            ending.requestSent = true
            ending.responseStarted = true
            ending.statusCode = 200
            observe(&ending)
            self.ending = ending
            self.expected = expected
        }

        var description: String { name }
    }

    static let rows: [Row] = [
        // A plain success, and the successes that need a look.
        Row("success", CURLE_OK, .success),
        Row("an empty chunked or compressed body", CURLE_OK, .success) { $0.decoding = .untouched },
        Row("a chunked body whose framing ended", CURLE_OK, .success) { $0.decoding = .complete },
        Row("HTTP/2 answer before the whole request body went out", CURLE_WRITE_ERROR, .success) {
            $0.answeredBeforeBodySent = true
        },
        Row("answered early, but the stream then failed", CURLE_HTTP2_STREAM, .libcurl(CURLE_HTTP2_STREAM.rawValue)) {
            $0.answeredBeforeBodySent = true
        },

        // Connect's findings, whatever libcurl then reported.
        Row("a head Connect refused", CURLE_WRITE_ERROR, .failure(.malformedResponse)) {
            $0.headProblem = .malformedStatusLine
        },
        Row("a head refused, libcurl saw success", CURLE_OK, .failure(.malformedResponse)) {
            $0.headProblem = .carriageReturnInField
        },
        Row("a head refused and a resend refused: the head", CURLE_ABORTED_BY_CALLBACK, .failure(.malformedResponse)) {
            $0.headProblem = .conflictingContentLengths
            $0.refusedResend = true
        },
        Row("a resend of a POST refused", CURLE_ABORTED_BY_CALLBACK, .failure(.connectionClosed)) {
            $0.refusedResend = true
            $0.method = "POST"
        },
        Row("a chunked body malformed", CURLE_WRITE_ERROR, .failure(.malformedResponse)) {
            $0.decodingFailure = .chunked(.malformedChunkSize)
        },
        Row("a malformed body on a head already refused: the head", CURLE_WRITE_ERROR, .failure(.malformedResponse)) {
            $0.headProblem = .headTooLarge
            $0.decodingFailure = .chunked(.missingLineEnd)
        },

        // A reused connection that died before any answer.
        Row("reused connection closed, nothing came", CURLE_PARTIAL_FILE, .failure(.connectionClosed)) {
            $0.connectionWasReused = true
            $0.responseStarted = false
            $0.statusCode = 0
        },
        Row("reused connection reset, nothing came", CURLE_RECV_ERROR, .failure(.connectionClosed)) {
            $0.connectionWasReused = true
            $0.responseStarted = false
        },
        Row("reused connection, got nothing", CURLE_GOT_NOTHING, .failure(.connectionClosed)) {
            $0.connectionWasReused = true
            $0.responseStarted = false
        },
        Row("reused connection died before the request went out", CURLE_SEND_ERROR, .libcurl(CURLE_SEND_ERROR.rawValue))
        {
            $0.connectionWasReused = true
            $0.responseStarted = false
            $0.requestSent = false
        },
        Row("a new connection closed before any answer", CURLE_PARTIAL_FILE, .libcurl(CURLE_PARTIAL_FILE.rawValue)) {
            $0.responseStarted = false
        },
        Row("reused connection closed mid-answer", CURLE_PARTIAL_FILE, .libcurl(CURLE_PARTIAL_FILE.rawValue)) {
            $0.connectionWasReused = true
        },
        Row("a stream the server reset", CURLE_HTTP2_STREAM, .libcurl(CURLE_HTTP2_STREAM.rawValue)) {
            $0.connectionWasReused = true
            $0.responseStarted = false
        },

        // What libcurl 7.88 reports vaguely.
        Row(
            "a one-time body libcurl had to send again", CURLE_SEND_FAIL_REWIND,
            .failure(.bodyNotReplayable, requestSent: false)
        ) {
            $0.bodyIsOneTimeStream = true
            $0.requestSent = false
        },
        Row(
            "a replayable body libcurl could not rewind", CURLE_SEND_FAIL_REWIND,
            .libcurl(CURLE_SEND_FAIL_REWIND.rawValue)),
        Row("a trailer line without a colon", CURLE_BAD_FUNCTION_ARGUMENT, .failure(.malformedResponse)),
        Row(
            "a bad option before any answer", CURLE_BAD_FUNCTION_ARGUMENT,
            .libcurl(CURLE_BAD_FUNCTION_ARGUMENT.rawValue)
        ) { $0.statusCode = 0 },
        Row("a reply that is not HTTP", CURLE_UNSUPPORTED_PROTOCOL, .failure(.malformedResponse)) { $0.statusCode = 0 },
        Row("a URL libcurl does not speak", CURLE_UNSUPPORTED_PROTOCOL, .libcurl(CURLE_UNSUPPORTED_PROTOCOL.rawValue)) {
            $0.statusCode = 0
            $0.requestSent = false
        },

        // libcurl saw success; Connect sees the response cut short.
        Row("the connection closed inside the head", CURLE_OK, .failure(.truncatedResponse)) {
            $0.headIsComplete = false
        },
        Row("a chunked or compressed body cut off", CURLE_OK, .failure(.truncatedResponse)) {
            $0.decoding = .unfinished
        },
        Row("cut off, and libcurl saw it too", CURLE_PARTIAL_FILE, .libcurl(CURLE_PARTIAL_FILE.rawValue)) {
            $0.decoding = .unfinished
        },

        // The body's and the sink's own failures, and the size limit.
        Row("the body sequence threw", CURLE_ABORTED_BY_CALLBACK, .streamedBodyFailure) {
            $0.streamedBodyFailed = true
        },
        Row("the body sequence threw, even with a refused head", CURLE_ABORTED_BY_CALLBACK, .streamedBodyFailure) {
            $0.streamedBodyFailed = true
            $0.headProblem = .malformedStatusLine
        },
        Row("the file could not be written", CURLE_WRITE_ERROR, .sinkFailure) { $0.sinkFailed = true },
        Row("the body past the limit", CURLE_WRITE_ERROR, .responseTooLarge) { $0.bodyTooLarge = true },
        Row("a sink failure and the limit: the sink", CURLE_WRITE_ERROR, .sinkFailure) {
            $0.sinkFailed = true
            $0.bodyTooLarge = true
        },
        Row("a sink failure on a success is the sink's to report", CURLE_OK, .success) { $0.sinkFailed = true },

        // libcurl's own failures, read by ConnectError.
        Row("connection refused", CURLE_COULDNT_CONNECT, .libcurl(CURLE_COULDNT_CONNECT.rawValue)) {
            $0.requestSent = false
            $0.responseStarted = false
            $0.statusCode = 0
        },
        Row("timed out", CURLE_OPERATION_TIMEDOUT, .libcurl(CURLE_OPERATION_TIMEDOUT.rawValue)),
        Row("a framing error", CURLE_HTTP2, .libcurl(CURLE_HTTP2.rawValue)),
        // libcurl 8's CURLE_TOO_LARGE (100), which 7.88's headers do not name.
        Row("a head over libcurl 8's limit", CURLcode(rawValue: 100), .libcurl(100))
    ]

    @Test(arguments: rows)
    func outcome(_ row: Row) {
        switch (row.ending.outcome, row.expected) {
        case (.success, .success), (.streamedBodyFailure, .streamedBodyFailure), (.sinkFailure, .sinkFailure),
            (.responseTooLarge, .responseTooLarge):
            break
        case (.libcurlFailure(let code), .libcurl(let expected)):
            #expect(code.rawValue == expected)
        case (.failure(let failure), .failure(let kind, let requestSent)):
            #expect(failure.kind == kind)
            #expect(failure.requestSent == requestSent)
            #expect(failure.curlCode == nil, "Connect's own finding carries no curl code")
        case (let outcome, let expected):
            Issue.record("\(outcome), expected \(expected)")
        }
    }

    @Test func theMessagesNameTheMethodAndTheProblem() {
        var ending = TransferEnding(code: CURLE_ABORTED_BY_CALLBACK, method: "POST")
        ending.refusedResend = true
        guard case .failure(let resend) = ending.outcome else {
            Issue.record("\(ending.outcome)")
            return
        }
        #expect(resend.message.contains("a POST is not sent again"))

        ending = TransferEnding(code: CURLE_WRITE_ERROR, method: "GET")
        ending.decodingFailure = .chunked(.malformedChunkSize)
        guard case .failure(let malformed) = ending.outcome else {
            Issue.record("\(ending.outcome)")
            return
        }
        #expect(malformed.message.hasPrefix("Malformed response: the chunked body is malformed"))
    }
}
