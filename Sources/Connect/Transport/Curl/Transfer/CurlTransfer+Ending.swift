internal import ConnectWire
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a transfer ends: what libcurl reported and the resources show, handed to
/// ``TransferState/ended(_:)``, and the response or error a settlement delivers.
extension CurlTransfer {
    /// What the transfer loop does with a transfer libcurl ended, as its last event says.
    enum Finish {
        /// Hand the outcome to the callback queue.
        case deliver(Delivery)
        /// Start over as the restart says; if the body cannot go out again, deliver what
        /// ``deliveryWithoutRestart(_:handle:)`` makes of the end instead.
        case restart(TransferState.Restart, TransferState.End)
        /// The WebSocket handshake's answer came: open the connection.
        case openWebSocket(WebSocketOpening)
    }

    /// A settled transfer's response or error, and whether its handle keeps its plain setup for
    /// the next transfer (see ``ResendDecision/keepsHandleSetup(transferSucceeded:connectionsChosen:)``).
    struct Delivery {
        let outcome: Result<ResponseBuffers, any Error>
        let keepsHandleSetup: Bool
    }

    /// The last event: libcurl ended the transfer with `code` on `handle`. Reads the end
    /// (``end(_:on:requestWasWritten:)``), lets the state decide (``TransferState/ended(_:)``),
    /// and makes the delivery of a settled transfer.
    func finished(_ code: CURLcode, on handle: CurlEasyHandle) -> Finish {
        let end = end(code, on: handle)
        switch state.ended(end) {
        case .settle(let settlement):
            return .deliver(delivery(settlement, end, handle: handle))
        case .openWebSocket:
            guard let opening = options?.webSocket else {
                let failure = TransportFailure(.other, "a WebSocket's connection without its opening")
                return .deliver(delivery(.fail(.transport(failure)), end, handle: handle))
            }
            return .openWebSocket(opening)
        case .restart(let restart):
            if _slowPath(restart.cause == .alternativeFailed) { leaveAlternative(on: handle) }
            return .restart(restart, end)
        }
    }

    /// The delivery of a transfer whose restart required its body to go out again, which it
    /// cannot (see ``TransferState/bodyDidNotRewind(_:)``).
    func deliveryWithoutRestart(_ end: TransferState.End, handle: CurlEasyHandle) -> Delivery {
        delivery(state.bodyDidNotRewind(end), end, handle: handle)
    }

    private func delivery(
        _ settlement: TransferState.Settlement, _ end: TransferState.End, handle: CurlEasyHandle
    ) -> Delivery {
        Delivery(
            outcome: outcome(settlement, end, handle: handle),
            keepsHandleSetup: ResendDecision.keepsHandleSetup(
                transferSucceeded: end.code == CURLE_OK, connectionsChosen: state.connectionsChosen))
    }

    /// The end event for ``TransferState/ended(_:)``: libcurl's `code`, and what the handle and
    /// the transfer's resources show. `requestWasWritten`: the request went out without libcurl
    /// counting it (the WebSocket handshake writes its request itself).
    func end(_ code: CURLcode, on handle: CurlEasyHandle, requestWasWritten: Bool = false) -> TransferState.End {
        let bytesSent = handle.infoLong(CURLINFO_REQUEST_SIZE)
        var end = TransferState.End(
            code: code, bytesSent: bytesSent, requestSent: requestWasWritten || bytesSent > 0,
            connectionWasReused: handle.infoLong(CURLINFO_NUM_CONNECTS) == 0)
        if _slowPath(decoder != nil || bodyReader != nil || sink != nil || handle.opensWebSocket) {
            readResources(into: &end, handle)
        }
        if _slowPath(code == CURLE_OPERATION_TIMEDOUT) { readTimes(into: &end, handle) }
        return end
    }

    /// For ``end(_:on:requestWasWritten:)`` of a transfer that timed out, the times that decide
    /// whether it starts over (see ``TransferState/End/timeLeft``).
    @inline(never)
    func readTimes(into end: inout TransferState.End, _ handle: CurlEasyHandle) {
        end.timeLeft = timeLeft(on: handle)
        end.connectingLasted = state.connectingBegan.map { MonotonicInstant.now - $0 }
        end.connectTimeout = state.connectTimeoutCut ?? configuredConnectTimeout
        let openings = handle.connections.openings
        if !openings.isEmpty {
            end.waitedForOpening = openings.waitedForOpening(
                to: connectionOrigin(), by: ObjectIdentifier(self), within: end.connectTimeout, before: .now)
        }
    }

    /// The connect timeout the settings give, as libcurl applies it.
    var configuredConnectTimeout: Duration {
        Self.appliedConnectTimeout(settings.connectTimeout)
    }

    /// The connect timeout libcurl applies for `timeout` as ``milliseconds(_:)`` hands it over:
    /// whole milliseconds, at least 1, and its 0, "never", is its default of 300 s for connecting.
    static func appliedConnectTimeout(_ timeout: Duration) -> Duration {
        let milliseconds = Self.milliseconds(timeout)
        return milliseconds == 0 ? .seconds(300) : .milliseconds(milliseconds)
    }

    /// For ``end(_:on:requestWasWritten:)``, the decoder's, the streamed body's and the file's states.
    @inline(never)
    func readResources(into end: inout TransferState.End, _ handle: CurlEasyHandle) {
        if let decoder {
            end.decoding = !decoder.hasInput ? .untouched : decoder.isComplete ? .complete : .unfinished
        }
        end.streamedBodyFailed = bodyReader?.pump?.failure != nil
        end.sinkFailed = sink?.error != nil
        end.opensWebSocket = handle.opensWebSocket
    }

    /// The response received, or the error, for `settlement` of a transfer that ended as `end`
    /// said. The `Response` itself is made on the callback queue (see ``ResponseBuffers``).
    ///
    /// Written as the path of a plain exchange that ended well, with everything else (a failure,
    /// a streamed body, a file, progress reports) in
    /// ``settleUnusualEnding(_:requestSent:handle:)`` out of line: the code every request runs
    /// stays a few cache lines long.
    func outcome(
        _ settlement: TransferState.Settlement, _ end: TransferState.End, handle: CurlEasyHandle
    ) -> Result<ResponseBuffers, any Error> {
        var fileURL: URL?
        let succeeds: Bool
        if case .succeed = settlement { succeeds = true } else { succeeds = false }
        if _slowPath(!succeeds || bodyReader != nil || sink != nil || options?.progress != nil) {
            switch settleUnusualEnding(settlement, requestSent: end.requestSent, handle: handle) {
            case .success(let url): fileURL = url
            case .failure(let error): return .failure(error)
            }
        }
        let httpVersion = handle.infoLong(CURLINFO_HTTP_VERSION)
        if let socket = connection.socket {
            handle.connections.exchangeFinished(on: socket, isHTTP1: httpVersion < CURL_HTTP_VERSION_2_0)
        }
        guard let received else {  // the loop gives every transfer one before it starts
            return .failure(
                ConnectError.transport(TransportFailure(.other, "no response buffers", requestSent: end.requestSent)))
        }
        self.received = nil
        if _slowPath(settings.alternativeFallback != nil), let cache = handle.connections.alternativeServices {
            recordAlternatives(in: received, cache: cache)
        }
        received.statusCode = state.statusCode
        received.httpVersion = Self.versionName(httpVersion)
        received.metrics = TransferMetrics(
            nameLookup: handle.infoDuration(CURLINFO_NAMELOOKUP_TIME_T),
            connect: handle.infoDuration(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: handle.infoDuration(CURLINFO_APPCONNECT_TIME_T),
            firstByte: handle.infoDuration(CURLINFO_STARTTRANSFER_TIME_T),
            total: handle.infoDuration(CURLINFO_TOTAL_TIME_T),
            redirectCount: 0,
            bytesSent: end.bytesSent,
            bytesReceived: Int(handle.infoOffset(CURLINFO_SIZE_DOWNLOAD_T)),
            reusedConnection: end.connectionWasReused
        )
        if let sink {
            received.fileURL = fileURL
            received.resumed = sink.resumed
        }
        return .success(received)
    }

    /// For ``outcome(_:_:handle:)``, every ending but a plain success: the error `settlement`
    /// names, or for a success the file its body went to (`nil` for memory). Closes a streamed
    /// body's reader and the file sink, and reports the final progress.
    @inline(never)
    func settleUnusualEnding(
        _ settlement: TransferState.Settlement, requestSent: Bool, handle: CurlEasyHandle
    ) -> Result<URL?, any Error> {
        updateFinalProgress(handle)
        let pump = bodyReader?.pump
        pump?.close()
        switch settlement {
        case .succeed:
            if let sink, (200..<300).contains(state.statusCode) {
                if let error = sink.finish(succeeded: true) { return .failure(error) }
                return .success(sink.destination)
            }
            finishSink(succeeded: false)
            return .success(nil)
        case .fail(let failure):
            let sinkError = sink?.error
            finishSink(succeeded: false)
            return .failure(
                error(for: failure, requestSent: requestSent, handle: handle, pump: pump, sinkError: sinkError))
        }
    }

    /// The error a transfer that ended with `failure` fails with.
    func error(
        for failure: TransferState.Failure, requestSent: Bool, handle: CurlEasyHandle, pump: BodyPump?,
        sinkError: (any Error)?
    ) -> any Error {
        switch failure {
        case .transport(let failure): return ConnectError.transport(failure)
        case .streamedBody:
            return pump?.failure
                ?? ConnectError.transport(
                    TransportFailure(.other, "the request body's stream failed", requestSent: requestSent))
        case .sink:
            return sinkError
                ?? ConnectError.transport(
                    TransportFailure(.other, "the file could not be written", requestSent: requestSent))
        case .responseTooLarge: return ConnectError.responseTooLarge(limit: settings.maximumBodySize)
        case .libcurl(let code) where code == CURLE_URL_MALFORMAT:
            return ConnectError.invalidRequest(Self.malformedURLMessage(request.url, handle.errorMessage(for: code)))
        case .libcurl(let code) where code == CURLE_OPERATION_TIMEDOUT:
            return ConnectError(
                curlCode: code, message: timeoutMessage(handle.errorMessage(for: code)), requestSent: requestSent)
        case .libcurl(let code):
            return ConnectError(curlCode: code, message: handle.errorMessage(for: code), requestSent: requestSent)
        }
    }

    /// libcurl's words for a timeout, and where a wait for another's connection cut this
    /// attempt's connect timeout and the attempt found no connection, how long that wait took:
    /// libcurl counts only its own attempt ("after 3 ms").
    func timeoutMessage(_ libcurlMessage: String) -> String {
        guard let cut = state.connectTimeoutCut, state.waitingForConnectionSince != nil else { return libcurlMessage }
        return libcurlMessage + " (having waited \(Self.milliseconds(configuredConnectTimeout - cut)) milliseconds "
            + "before for the connection another request was opening to \(connectionOrigin()))"
    }

    /// Why libcurl refused `url`, in words that name it: libcurl's own text ("URL using
    /// bad/illegal format or missing URL") names neither the URL nor what is wrong. Worked out
    /// here, on the failure, rather than checked on every request.
    static func malformedURLMessage(_ url: URL, _ libcurlMessage: String) -> String {
        let text = url.absoluteString.debugDescription
        if let port = url.port, !(0...65535).contains(port) {
            return "the URL \(text) has the port \(port); a TCP port is 0 to 65535"
        }
        return "libcurl cannot use the URL \(text): \(libcurlMessage)"
    }

    static func versionName(_ code: Int) -> String {
        switch code {
        case CURL_HTTP_VERSION_1_0: return "1.0"
        case CURL_HTTP_VERSION_2_0: return "2"
        case CURL_HTTP_VERSION_3: return "3"
        default: return "1.1"
        }
    }
}
