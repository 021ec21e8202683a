import CCurl

// Starting a transfer over where its TransferState says (see TransferLoop+Finishing.swift), and
// the transfers that wait for another's new connection.
extension TransferLoop {
    struct WaitingTransfer {
        let handle: CurlEasyHandle
        let transfer: CurlTransfer
        let origin: String
    }

    /// Starts `transfer` again as `restart` says, on the connection
    /// ``ResendDecision/restartConnection(after:)`` names for its cause: the transport stopped it
    /// from going out on the one libcurl chose, or that connection died or the server refused its
    /// stream before any of the answer came. Returns `false`, leaving the transfer to settle,
    /// when the restart requires the body to rewind and it cannot.
    ///
    /// A body that rewinds (``CurlTransfer/rewindsForReset()``) has the handle reset and the
    /// transfer's options set again: libcurl 7.88 keeps the count of the times it sent the request
    /// again across a remove and add, and refuses a sixth, so a transfer it resent before this
    /// restart would otherwise start over with fewer resends left than a new one. A body that
    /// cannot go out again keeps the handle's options as they are.
    @inline(never)
    func restart(_ handle: CurlEasyHandle, _ transfer: CurlTransfer, _ restart: TransferState.Restart) -> Bool {
        let resettingHandle = transfer.rewindsForReset()
        if restart.requiresRewind, !resettingHandle { return false }
        let connection = ResendDecision.restartConnection(after: restart.cause)
        let timeLeft = transfer.timeLeft(on: handle)  // before the reset clears libcurl's count
        curl_multi_remove_handle(multi, handle.raw)
        if resettingHandle {
            guard clear(handle) else {
                removeActive(handle)
                failSetup(
                    of: transfer, on: handle,
                    ConnectError.transport(TransportFailure(.other, "curl_easy_init failed", requestSent: false)))
                return true
            }
            do {
                try transfer.configure(handle, again: true)
            } catch {
                removeActive(handle)
                failSetup(of: transfer, on: handle, error)
                return true
            }
            configureCookies(handle)
        }
        handle.restoreConnectTimeout()
        transfer.prepareForRestart(on: handle, connection)
        // Set either way: a handle that kept its options may carry an earlier restart's.
        handle.set(CURLOPT_FRESH_CONNECT, connection == .new ? 1 : 0)
        // The request's timeout bounds the whole exchange: a restart has what is left of it.
        handle.set(CURLOPT_TIMEOUT_MS, CurlTransfer.milliseconds(timeLeft))
        handle.holdsPlainSetup = false  // so that `recycle` resets the option
        if let origin = restart.waitsForConnectionTo {
            waiting.append(WaitingTransfer(handle: handle, transfer: transfer, origin: origin))
        } else {
            addToMulti(handle, running: transfer)
        }
        return true
    }

    /// Hands to libcurl the waiting transfers whose origin's new connection is ready, or whose
    /// opener ended; fails those whose wait used up their connect timeout (the opening failed,
    /// or took that long); forgets those that were cancelled meanwhile.
    func releaseWaiting() {
        var stillWaiting: [WaitingTransfer] = []
        for entry in waiting where entry.handle.transfer === entry.transfer {
            if connections.openings.waits(for: entry.origin) {
                stillWaiting.append(entry)
                continue
            }
            switch entry.transfer.connectionWaitEnded(on: entry.handle, at: .now) {
            case .connects:
                addToMulti(entry.handle, running: entry.transfer)
            case .timedOut(let waited):
                removeActive(entry.handle)
                failSetup(
                    of: entry.transfer, on: entry.handle,
                    .timedOut(Self.waitedOutConnectTimeout(waited: waited, origin: entry.origin)))
            }
        }
        waiting = stillWaiting
    }

    /// The message of a transfer that waited its whole connect timeout for the connection
    /// another was opening, in the words of libcurl's own connect timeout.
    private static func waitedOutConnectTimeout(waited: Duration, origin: String) -> String {
        "Connection timed out after \(CurlTransfer.milliseconds(waited)) milliseconds, waiting for the connection "
            + "another request was opening to \(origin)"
    }
}
