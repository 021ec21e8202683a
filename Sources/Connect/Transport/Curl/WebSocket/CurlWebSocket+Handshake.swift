internal import ConnectWire
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The opening handshake on the connection libcurl opened: the request head written, the answer
/// read line by line into the transfer (the same head parser and header store as every
/// response), then either the connection opens (101, checked by ``WebSocketHandshake``) or the
/// refusal's body is read and delivered as the transfer's response, for the error handler and
/// the retriers.
extension CurlWebSocket {
    /// Writes the handshake request to ``url``; its answer must come before `deadline`.
    func beginHandshake(headers: [HTTPHeader], deadline: MonotonicInstant) {
        guard let head = handshake.requestHead(url: url, headers: headers) else {
            endOpening(failure: ConnectError.invalidRequest("the WebSocket URL \(url.debugDescription) has no host"))
            return
        }
        self.deadline = deadline
        output.append(Outgoing(bytes: head, completion: nil))
        flush()
    }

    /// Bytes of the answer, before the connection opened.
    func takeHandshakeBytes(_ bytes: UnsafeRawBufferPointer) {
        guard let transfer = openingTransfer else { return }
        if readsRefusalBody { return takeRefusalBody(bytes, transfer) }
        var start = 0
        while start < bytes.count {
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                partialLine.append(contentsOf: bytes[start...])
                if partialLine.count > ResponseHeadParser.maximumHeadSize {
                    return endOpening(
                        failure: ConnectError.transport(
                            TransportFailure(
                                .malformedResponse, "Malformed response: \(ResponseHeadParser.Problem.headTooLarge)")))
                }
                return
            }
            let lineBytes = UnsafeRawBufferPointer(rebasing: bytes[start...newline])
            start = newline + 1
            let isBlank: Bool
            let accepted: Bool
            if partialLine.isEmpty {
                isBlank = ResponseHeadParser.content(of: lineBytes).isEmpty
                accepted = transfer.receiveHeaderLine(lineBytes)
            } else {
                partialLine.append(contentsOf: lineBytes)
                isBlank = partialLine.withUnsafeBytes { ResponseHeadParser.content(of: $0).isEmpty }
                accepted = partialLine.withUnsafeBytes { transfer.receiveHeaderLine($0) }
                partialLine.removeAll()
            }
            guard accepted else { return endOpening(socketEndedWith: CURLE_OK, reason: "") }
            // 1xx heads other than 101 (100 Continue, 103 Early Hints) come before the answer.
            guard isBlank, transfer.state.statusCode == 101 || transfer.state.statusCode >= 200 else { continue }
            if let received = transfer.received {
                transfer.storeWebSocketCookies(from: received.headers.copy().parsed(), url: url, handle: handle)
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            if transfer.state.statusCode == 101 {
                open(transfer, framesAfterHead: rest)
            } else {
                readsRefusalBody = true
                let status = transfer.state.statusCode
                refusalBodyLeft =
                    status == 204 || status == 304
                    ? 0 : transfer.state.head.isChunked ? nil : transfer.state.head.contentLength
                if refusalBodyLeft == 0 { return finishRefusal(transfer) }
                takeRefusalBody(rest, transfer)
            }
            return
        }
    }

    /// A 101: the handshake completes if ``WebSocketHandshake/outcome(status:headers:)`` agrees,
    /// and the bytes after the head are the first frames.
    private func open(_ transfer: CurlTransfer, framesAfterHead rest: UnsafeRawBufferPointer) {
        guard let received = transfer.received else {
            return endOpening(
                failure: ConnectError.transport(TransportFailure(.other, "no response buffers", requestSent: true)))
        }
        let outcome: WebSocketHandshake.Outcome
        do throws(WebSocketHandshake.Failure) {
            outcome = try handshake.outcome(status: 101, headers: received.headers.copy().parsed())
        } catch {
            return endOpening(
                failure: ConnectError.transport(
                    TransportFailure(
                        .webSocketHandshake, "WebSocket handshake failed: \(error.reason)", requestSent: true)))
        }
        if let parameters = outcome.compression {
            guard let compression = PermessageDeflate(parameters: parameters) else {
                return endOpening(
                    failure: ConnectError.transport(
                        TransportFailure(.other, "zlib could not start for permessage-deflate", requestSent: true)))
            }
            self.compression = compression
            reader = WebSocketFrameReader(maximumPayload: options.maximumMessageSize, allowsCompression: true)
            assembler = WebSocketMessageAssembler(
                maximumMessageSize: options.maximumMessageSize, compression: compression)
        }
        opening?.opened(self, outcome)
        opening = nil
        deliverOpening(transfer, received)
        deadline = nil
        if let interval = options.pingInterval { nextKeepAlivePing = .now + interval }
        if !rest.isEmpty { takeFrames(rest) }
    }

    /// Body bytes of an answer other than 101, kept for the error handler.
    private func takeRefusalBody(_ bytes: UnsafeRawBufferPointer, _ transfer: CurlTransfer) {
        guard !bytes.isEmpty else { return }
        var body = bytes
        if let left = refusalBodyLeft {
            body = UnsafeRawBufferPointer(rebasing: bytes[..<min(left, bytes.count)])
            refusalBodyLeft = left - body.count
        }
        guard transfer.receiveBody(body) == body.count else {
            return endOpening(socketEndedWith: CURLE_WRITE_ERROR, reason: "")
        }
        if refusalBodyLeft == 0 || (transfer.decoder?.isComplete == true && transfer.state.head.isChunked) {
            finishRefusal(transfer)
        }
    }

    /// The refusal's body is whole: the transfer ends with it, and the connection closes.
    private func finishRefusal(_ transfer: CurlTransfer) {
        let settlement = transfer.state.settled(transfer.end(CURLE_OK, on: handle, requestWasWritten: true))
        switch transfer.settleUnusualEnding(settlement, requestSent: true, handle: handle) {
        case .failure(let error): endOpening(failure: error)
        case .success:
            guard let received = transfer.received else { return endOpening(socketEndedWith: CURLE_OK, reason: "") }
            deliverOpening(transfer, received)
            dropReason = "the handshake was refused"
            end()
        }
    }

    /// Hands `received` as the transfer's response: the loop delivers it after this round.
    private func deliverOpening(_ transfer: CurlTransfer, _ received: ResponseBuffers) {
        transfer.received = nil
        openingTransfer = nil
        received.statusCode = transfer.state.statusCode
        received.httpVersion = transfer.state.head.httpVersion
        received.metrics = TransferMetrics(
            nameLookup: handle.infoDuration(CURLINFO_NAMELOOKUP_TIME_T),
            connect: handle.infoDuration(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: handle.infoDuration(CURLINFO_APPCONNECT_TIME_T),
            firstByte: handle.infoDuration(CURLINFO_CONNECT_TIME_T),
            total: handle.infoDuration(CURLINFO_TOTAL_TIME_T),
            redirectCount: 0, bytesSent: 0, bytesReceived: 0,
            reusedConnection: false)
        openingOutcome = (transfer, .success(received))
    }

    /// The socket ended, or the head was refused, before the handshake's answer was whole. A
    /// body without a length ends with the connection: that is the answer's end.
    func endOpening(socketEndedWith code: CURLcode, reason: String) {
        guard let transfer = openingTransfer else { return }
        if readsRefusalBody, refusalBodyLeft == nil, !transfer.state.head.isChunked, code == CURLE_OK {
            return finishRefusal(transfer)
        }
        let failure: any Error
        if transfer.state.refusedAnswer {
            let settlement = transfer.state.settled(transfer.end(code, on: handle, requestWasWritten: true))
            if case .failure(let error) = transfer.settleUnusualEnding(settlement, requestSent: true, handle: handle) {
                return endOpening(failure: error)
            }
            failure = ConnectError.transport(
                TransportFailure(.malformedResponse, "Malformed response", requestSent: true))
        } else if transfer.state.statusCode == 0 && partialLine.isEmpty {
            failure = ConnectError.transport(
                TransportFailure(
                    .connectionClosed, "The server closed the connection without answering the WebSocket handshake",
                    requestSent: true))
        } else if code == CURLE_OK {
            failure = ConnectError.transport(
                TransportFailure(
                    .truncatedResponse,
                    "Truncated response: the connection closed inside the answer to the WebSocket handshake",
                    requestSent: true))
        } else {
            failure = ConnectError(curlCode: code, message: reason, requestSent: true)
        }
        endOpening(failure: failure)
    }

    /// The handshake failed: the transfer fails with `failure`, and the connection closes.
    func endOpening(failure: any Error) {
        guard let transfer = openingTransfer else { return }
        openingTransfer = nil
        openingOutcome = (transfer, .failure(failure))
        dropReason = "the handshake failed"
        end()
    }
}
