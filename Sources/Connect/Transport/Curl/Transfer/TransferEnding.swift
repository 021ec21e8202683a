import CCurl

/// How a transfer ended: libcurl's result and what the transfer's callbacks observed in, the
/// outcome out. A plain value, so that every combination the fault suite reaches is tested
/// without a socket (`TransferEndingTests`); ``CurlTransfer`` gathers the observations and turns
/// the outcome into its result.
///
/// Connect's own findings come first: libcurl 7.88 lets a malformed head, a broken body framing
/// or a resend through, or reports them as something vaguer. Then libcurl's code, which
/// ``ConnectError/init(curlCode:message:requestSent:)`` reads.
struct TransferEnding: Equatable {
    /// libcurl's result for the transfer.
    var code: CURLcode
    /// The method, for messages.
    var method: String = "GET"

    // What the callbacks observed.

    /// Why Connect refused the response head, if it did.
    var headProblem: ResponseHeadParser.Problem?
    /// libcurl was stopped from sending the request again (see
    /// ``ResendDecision/refusesResend(connectionsChosen:isRepeatable:answersChallenge:)``).
    var refusedResend = false
    /// Why the body's framing or content coding failed, if it did.
    var decodingFailure: BodyDecoder.Failure?
    /// The whole answer came over HTTP/2 before the whole request body went out, and the
    /// transfer was stopped there (libcurl then reports a write error).
    var answeredBeforeBodySent = false
    /// The body went past the configured limit (libcurl then reports a write error).
    var bodyTooLarge = false
    /// The response head ended (an empty line came).
    var headIsComplete = true
    /// The state of a chunked or compressed body's decoder.
    var decoding: Decoding = .none
    /// Any of the answer arrived: a status line, or body bytes.
    var responseStarted = false
    /// The final status code (0 before any).
    var statusCode = 0

    // The request and its connection.

    /// Any byte of the request went out.
    var requestSent = false
    /// The transfer ran on a connection an earlier one had used.
    var connectionWasReused = false
    /// The request body is a one-time stream, which cannot go out again.
    var bodyIsOneTimeStream = false
    /// The streamed body failed on its own (the sequence threw, or broke its declared size).
    var streamedBodyFailed = false
    /// The file the body went to failed.
    var sinkFailed = false

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

    /// What the transfer ends with.
    enum Outcome: Equatable {
        case success
        /// A failure Connect found: the response or the resend.
        case failure(TransportFailure)
        /// The streamed request body's own error.
        case streamedBodyFailure
        /// The file sink's own error.
        case sinkFailure
        /// The body went past the configured limit.
        case responseTooLarge
        /// libcurl's code, read by ``ConnectError/init(curlCode:message:requestSent:)``.
        case libcurlFailure(CURLcode)
    }

    var outcome: Outcome {
        // Stopped from a callback with the whole answer in hand: a success.
        let code = answeredBeforeBodySent && self.code == CURLE_WRITE_ERROR ? CURLE_OK : self.code
        if streamedBodyFailed { return .streamedBodyFailure }
        if let failure = connectsOwnFailure(code) { return .failure(failure) }
        guard code == CURLE_OK else {
            if sinkFailed { return .sinkFailure }
            if bodyTooLarge { return .responseTooLarge }
            return .libcurlFailure(code)
        }
        return .success
    }

    /// The failures Connect finds itself, which libcurl 7.88 lets through or reports as
    /// something else: a response it refused, a resend it stopped, a compressed body that is cut
    /// off or corrupt, a head that never ended, a reply that is not HTTP.
    private func connectsOwnFailure(_ code: CURLcode) -> TransportFailure? {
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
        if ResendDecision.endsWithDeadConnection(code), connectionWasReused, !responseStarted, requestSent {
            return TransportFailure(
                .connectionClosed,
                "The reused connection closed before any answer; the request may have reached the server, and a \(method) is not sent again unless it allows retries"
            )
        }
        if code == CURLE_SEND_FAIL_REWIND, bodyIsOneTimeStream {
            return TransportFailure(
                .bodyNotReplayable,
                "libcurl had to send the request body again, and it is a one-time stream that was already read",
                requestSent: requestSent)
        }
        if code == CURLE_BAD_FUNCTION_ARGUMENT, statusCode != 0 {
            // libcurl's header store refuses a line it cannot split into a name and a value (a
            // trailer without a colon, a folded line with no field before it) before Connect's
            // callback sees it.
            return TransportFailure(.malformedResponse, "Malformed response: a header or trailer line is not a field")
        }
        if code == CURLE_UNSUPPORTED_PROTOCOL, requestSent {
            return TransportFailure(.malformedResponse, "Malformed response: the reply is not HTTP")
        }
        guard code == CURLE_OK else { return nil }
        if !headIsComplete {
            return TransportFailure(
                .truncatedResponse, "Truncated response: the connection closed inside the response head")
        }
        if decoding == .unfinished {
            return TransportFailure(
                .truncatedResponse,
                "Truncated response: the body ends before its chunked framing or compressed stream does")
        }
        return nil
    }
}
