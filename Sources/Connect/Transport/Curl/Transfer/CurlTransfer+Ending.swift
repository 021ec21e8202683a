import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a transfer ends: what it observed handed to ``TransferEnding``, and the response or error
/// it delivers.
extension CurlTransfer {
    /// The response received, or the error, once libcurl reports `code` for this transfer. The
    /// `Response` itself is made on the callback queue (see ``ResponseBuffers``).
    ///
    /// Written as the path of a plain exchange that ended well, with everything else (a failure,
    /// a streamed body, a file, progress reports) in ``settleUnusualEnding(code:handle:requestSent:)``
    /// out of line: the code every request runs stays a few cache lines long.
    func outcome(code: CURLcode, handle: CurlEasyHandle) -> Result<ResponseBuffers, any Error> {
        let bytesSent = handle.infoLong(CURLINFO_REQUEST_SIZE)
        var fileURL: URL?
        if _slowPath(code != CURLE_OK || !endedCleanly || bodyReader != nil || sink != nil || options?.progress != nil)
        {
            switch settleUnusualEnding(code: code, handle: handle, requestSent: bytesSent > 0) {
            case .success(let url): fileURL = url
            case .failure(let error): return .failure(error)
            }
        }
        let httpVersion = handle.infoLong(CURLINFO_HTTP_VERSION)
        if let connectionSocket {
            handle.connections.exchangeFinished(on: connectionSocket, isHTTP1: httpVersion < CURL_HTTP_VERSION_2_0)
        }
        guard let received else {  // the loop gives every transfer one before it starts
            return .failure(
                ConnectError.transport(TransportFailure(.other, "no response buffers", requestSent: bytesSent > 0)))
        }
        self.received = nil
        received.statusCode = statusCode
        received.httpVersion = Self.versionName(httpVersion)
        received.metrics = TransferMetrics(
            nameLookup: handle.infoDuration(CURLINFO_NAMELOOKUP_TIME_T),
            connect: handle.infoDuration(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: handle.infoDuration(CURLINFO_APPCONNECT_TIME_T),
            firstByte: handle.infoDuration(CURLINFO_STARTTRANSFER_TIME_T),
            total: handle.infoDuration(CURLINFO_TOTAL_TIME_T),
            redirectCount: 0,
            bytesSent: bytesSent,
            bytesReceived: Int(handle.infoOffset(CURLINFO_SIZE_DOWNLOAD_T)),
            reusedConnection: handle.infoLong(CURLINFO_NUM_CONNECTS) == 0
        )
        if let sink {
            received.fileURL = fileURL
            received.resumed = sink.resumed
        }
        return .success(received)
    }

    /// Nothing the callbacks saw calls for a failure (see ``TransferEnding``) once libcurl reports
    /// success: the common case, checked at once so that a request that ended well skips it.
    var endedCleanly: Bool {
        headProblem == nil && !refusedResend && decodingFailure == nil && decoder == nil && head.isComplete
    }

    /// For ``outcome(code:handle:)``, every ending but a plain success: the error the transfer
    /// ends with, by ``TransferEnding``, or for a success the file its body went to (`nil` for
    /// memory). Closes a streamed body's reader and the file sink, and reports the final progress.
    @inline(never)
    func settleUnusualEnding(code: CURLcode, handle: CurlEasyHandle, requestSent: Bool) -> Result<URL?, any Error> {
        updateFinalProgress(handle)
        var bodyFailure: (any Error)?
        if let pump = bodyReader?.pump {
            pump.close()
            bodyFailure = pump.failure
        }
        let sinkError = sink?.error
        let outcome = ending(
            code: code, handle: handle, requestSent: requestSent, streamedBodyFailed: bodyFailure != nil,
            sinkFailed: sinkError != nil
        ).outcome
        if outcome == .success, let sink, (200..<300).contains(statusCode) {
            if let error = sink.finish(succeeded: true) { return .failure(error) }
            return .success(sink.destination)
        }
        finishSink(succeeded: false)
        switch outcome {
        case .success: return .success(nil)
        case .failure(let failure): return .failure(ConnectError.transport(failure))
        case .streamedBodyFailure: return .failure(bodyFailure!)
        case .sinkFailure: return .failure(sinkError!)
        case .responseTooLarge: return .failure(ConnectError.responseTooLarge(limit: settings.maximumBodySize))
        case .libcurlFailure(let code):
            return .failure(
                ConnectError(curlCode: code, message: handle.errorMessage(for: code), requestSent: requestSent))
        }
    }

    /// What the callbacks observed and libcurl reported, for ``TransferEnding`` to decide on.
    func ending(
        code: CURLcode, handle: CurlEasyHandle, requestSent: Bool, streamedBodyFailed: Bool, sinkFailed: Bool
    ) -> TransferEnding {
        var ending = TransferEnding(code: code, method: request.method.rawValue)
        ending.headProblem = headProblem
        ending.refusedResend = refusedResend
        ending.decodingFailure = decodingFailure
        ending.answeredBeforeBodySent = answeredBeforeBodySent
        ending.bodyTooLarge = bodyTooLarge
        ending.headIsComplete = head.isComplete
        if let decoder {
            ending.decoding = !decoder.hasInput ? .untouched : decoder.isComplete ? .complete : .unfinished
        }
        ending.responseStarted = responseStarted
        ending.statusCode = statusCode
        ending.requestSent = requestSent
        ending.connectionWasReused = handle.infoLong(CURLINFO_NUM_CONNECTS) == 0
        ending.bodyIsOneTimeStream = request.body?.isReplayable == false
        ending.streamedBodyFailed = streamedBodyFailed
        ending.sinkFailed = sinkFailed
        return ending
    }

    /// The request may go out more than once (see ``ResendDecision/mayRepeat(methodIsIdempotent:allowsRetry:)``).
    var isRepeatable: Bool {
        ResendDecision.mayRepeat(methodIsIdempotent: request.method.isIdempotent, allowsRetry: request.allowsRetry)
    }

    /// Any of the answer arrived: a status line, or body bytes.
    var responseStarted: Bool { statusCode != 0 || bodyBytesTaken > 0 }

    static func versionName(_ code: Int) -> String {
        switch code {
        case CURL_HTTP_VERSION_1_0: return "1.0"
        case CURL_HTTP_VERSION_2_0: return "2"
        case CURL_HTTP_VERSION_3: return "3"
        default: return "1.1"
        }
    }
}
