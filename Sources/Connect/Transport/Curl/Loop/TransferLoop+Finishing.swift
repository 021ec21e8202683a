import CCurl

// The end of a transfer: what libcurl finished is collected, its state's end event says what
// follows (settle, start over, open a WebSocket), and a settled transfer goes to the hand-off
// (CompletionHandOff), which completes its future on the callback queue.
extension TransferLoop {
    /// Collects every transfer libcurl finished; whether one of them had gone out on an HTTP/2
    /// connection (see the loop's second pass, in `TransferLoop.swift`).
    @discardableResult
    func collectFinished(from multi: UnsafeMutableRawPointer? = nil) -> Bool {
        var collectedMultiplexed = false
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi ?? self.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle else { continue }
            // Retained: removing it from the active handles may drop the loop's other reference
            // before it is kept for another transfer.
            guard let handle = CurlEasyHandle.owner(of: raw), let transfer = handle.transfer else { continue }
            collectedMultiplexed = collectedMultiplexed || transfer.state.wentOutOnHTTP2
            collect(transfer, endedWith: message.pointee.data.result, on: handle)
        }
        return collectedMultiplexed
    }

    /// Delivers `transfer`, which libcurl ended with `code` on `handle`, opens its WebSocket, or
    /// starts it over: whichever its state's end event (``TransferState/ended(_:)``) says.
    func collect(_ transfer: consuming CurlTransfer, endedWith code: CURLcode, on handle: CurlEasyHandle) {
        let end = transfer.end(code, on: handle)
        let settlement: TransferState.Settlement
        switch transfer.state.ended(end) {
        case .settle(let settled):
            settlement = settled
        case .openWebSocket:
            guard let opening = transfer.options?.webSocket else {
                settlement = .fail(.transport(TransportFailure(.other, "a WebSocket's connection without its opening")))
                break
            }
            return openWebSocket(transfer, opening, on: handle)
        case .restart(let restart):
            if self.restart(handle, transfer, restart) { return }
            settlement = transfer.state.bodyDidNotRewind(end)
        }
        let outcome = transfer.outcome(settlement, end, handle: handle)
        remove(
            handle,
            keepingSetup: ResendDecision.keepsHandleSetup(
                transferSucceeded: code == CURLE_OK, connectionsChosen: transfer.state.connectionsChosen))
        handOff.add(transfer, outcome)
    }
}
