import CCurl

// The request's timeout for a transfer waiting in libcurl's queue for a connection, which
// libcurl does not time out there (see QueueDeadlines): the transfers each pass added that did
// not begin connecting in it are noted with their deadline, and a wait that reaches it ends
// here with a timeout.
extension TransferLoop {
    /// A transfer in libcurl's queue: the handle it runs on, and which transfer it was.
    struct QueuedTransfer {
        let handle: CurlEasyHandle
        let transfer: ObjectIdentifier

        /// The transfer still runs on the handle and has not begun connecting.
        var stillWaits: Bool {
            guard let running = handle.transfer, ObjectIdentifier(running) == transfer else { return false }
            return running.waitsForConnection
        }
    }

    /// Notes the transfers this pass handed to libcurl that are waiting for a connection, with
    /// the deadline their timeout sets from when they first went to libcurl.
    func noteQueuedTransfers() {
        var now: MonotonicInstant?
        for handle in addedInPass {
            guard let transfer = handle.transfer, transfer.waitsForConnection,
                let timeout = transfer.timeout
            else { continue }
            let instant = now ?? .now
            now = instant
            let started = transfer.firstAttemptStarted ?? instant
            transfer.firstAttemptStarted = started
            queued.add(QueuedTransfer(handle: handle, transfer: ObjectIdentifier(transfer)), until: started + timeout)
        }
        addedInPass.removeAll(keepingCapacity: true)
        if _slowPath(queued.count > 2 * active.count + 64) { queued.forgetThoseNotWaiting(\.stillWaits) }
    }

    /// Ends, with a timeout, each transfer whose deadline passed while it still waits for a
    /// connection.
    func endOverdueWaits() {
        let now = MonotonicInstant.now
        for entry in queued.takeDue(at: now, stillWaits: \.stillWaits) {
            guard let transfer = entry.handle.transfer else { continue }
            let waited = transfer.firstAttemptStarted.map { now - $0 } ?? .zero
            stop(
                transfer, on: entry.handle,
                failingWith: .timedOut(
                    "No connection came free within the request's timeout (waited \(CurlTransfer.milliseconds(waited)) ms): the connections the client may open to \(transfer.connectionOrigin()) were busy (maximumConnectionsPerHost)"
                ))
        }
    }
}
