import CCurl

// Collecting what libcurl finished, and starting a transfer over where ResendDecision allows.
extension TransferLoop {
    struct WaitingTransfer {
        let handle: CurlEasyHandle
        let transfer: CurlTransfer
        let origin: String
    }

    func collectFinished(from multi: UnsafeMutableRawPointer? = nil) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi ?? self.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle else { continue }
            // Retained: removing it from the active handles may drop the loop's other reference
            // before it is kept for another transfer.
            guard let handle = CurlEasyHandle.owner(of: raw), let transfer = handle.transfer else { continue }
            collect(transfer, endedWith: message.pointee.data.result, on: handle)
        }
    }

    /// Delivers `transfer`, which libcurl ended with `code` on `handle`, or starts it over.
    func collect(_ transfer: consuming CurlTransfer, endedWith code: CURLcode, on handle: CurlEasyHandle) {
        if _slowPath(handle.opensWebSocket) {
            // A WebSocket's connection: nothing went out yet that a restart would send again.
            if code == CURLE_OK, let opening = transfer.options?.webSocket {
                return openWebSocket(transfer, opening, on: handle)
            }
        } else if _slowPath(code != CURLE_OK), restartsAfterFailure(code, handle, transfer) {
            return
        }
        let outcome = transfer.outcome(code: code, handle: handle)
        remove(
            handle,
            keepingSetup: ResendDecision.keepsHandleSetup(
                transferSucceeded: code == CURLE_OK, connectionsChosen: transfer.connectionsChosen))
        deliver(transfer, outcome)
    }

    /// Whether `transfer`, which libcurl ended with `code`, starts over instead of finishing: on
    /// a fresh connection when the one libcurl chose had unread bytes or spoke the wrong protocol,
    /// or after a framing error, as ``ResendDecision`` allows.
    @inline(never)
    func restartsAfterFailure(_ code: CURLcode, _ handle: CurlEasyHandle, _ transfer: CurlTransfer) -> Bool {
        if transfer.waitsForConnectionTo != nil {  // stopped as it opened a connection
            restart(handle, transfer, after: .waitedForSharedConnection, resettingHandle: transfer.rewindsForReset())
            return true
        }
        if code == CURLE_ABORTED_BY_CALLBACK, transfer.needsFreshConnection {
            restart(handle, transfer, after: .connectionRefused, resettingHandle: transfer.rewindsForReset())
            return true
        }
        if code == CURLE_HTTP2, transfer.startsOverAfterFramingError() {  // its body rewound
            restart(handle, transfer, after: .connectionEnded(multiplexed: true), resettingHandle: true)
            return true
        }
        if transfer.startsOverOnDeadConnection(code, on: handle) {  // its body rewound
            restart(
                handle, transfer, after: .connectionEnded(multiplexed: transfer.connectionMultiplexed),
                resettingHandle: true)
            return true
        }
        return false
    }

    /// Starts `transfer` again after `cause`, on the connection
    /// ``ResendDecision/restartConnection(after:)`` says: the
    /// transport stopped it from going out on the one libcurl chose, or that connection died or
    /// the server refused its stream before any of the answer came (see
    /// ``CurlTransfer/startsOverAfterFramingError()`` and
    /// ``CurlTransfer/startsOverOnDeadConnection(_:on:)``).
    ///
    /// `resettingHandle`: the transfer's body was rewound (``CurlTransfer/rewindsForReset()``),
    /// so the handle is reset and the transfer's options set again. libcurl 7.88 keeps the count
    /// of the times it sent the request again across a remove and add, and refuses a sixth, so a
    /// transfer it resent before this restart would otherwise start over with fewer resends left
    /// than a new one. A body that cannot go out again keeps the handle's options as they are.
    func restart(
        _ handle: CurlEasyHandle, _ transfer: CurlTransfer, after cause: ResendDecision.RestartCause,
        resettingHandle: Bool
    ) {
        let connection = ResendDecision.restartConnection(after: cause)
        let waitsForConnectionTo = transfer.waitsForConnectionTo
        curl_multi_remove_handle(multi, handle.raw)
        if resettingHandle {
            guard clear(handle) else {
                removeActive(handle)
                failSetup(
                    of: transfer, on: handle,
                    ConnectError.transport(TransportFailure(.other, "curl_easy_init failed", requestSent: false)))
                return
            }
            do {
                try transfer.configure(handle, again: true)
            } catch {
                removeActive(handle)
                failSetup(of: transfer, on: handle, error)
                return
            }
            configureCookies(handle)
        }
        transfer.prepareForRestart(on: handle, connection)
        // Set either way: a handle that kept its options may carry an earlier restart's.
        handle.set(CURLOPT_FRESH_CONNECT, connection == .new ? 1 : 0)
        handle.holdsPlainSetup = false  // so that `recycle` resets the option
        if let origin = waitsForConnectionTo {
            waiting.append(WaitingTransfer(handle: handle, transfer: transfer, origin: origin))
        } else {
            addToMulti(handle, running: transfer)
        }
    }

    /// Hands to libcurl the waiting transfers whose origin's new connection is ready, or whose
    /// opener ended; forgets those that were cancelled meanwhile.
    func releaseWaiting() {
        var stillWaiting: [WaitingTransfer] = []
        for entry in waiting where entry.handle.transfer === entry.transfer {
            if connections.openings.waits(for: entry.origin) {
                stillWaiting.append(entry)
            } else {
                addToMulti(entry.handle, running: entry.transfer)
            }
        }
        waiting = stillWaiting
    }
}
