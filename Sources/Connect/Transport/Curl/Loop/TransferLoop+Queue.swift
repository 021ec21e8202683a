import CCurl

// The request's timeout for a transfer waiting in libcurl's queue for a connection, which
// libcurl does not time out there (see QueueDeadlines): the transfers each pass added that did
// not begin connecting in it are noted with their deadline, and a wait that reaches it ends
// here with a timeout. Where libcurl counts the wait toward the connect timeout, the loop also
// moves that timeout on while the transfer waits (see QueuedConnectClock).
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

    /// A transfer in libcurl's queue whose connect timeout the loop moves on.
    struct QueuedConnectTimeout {
        let queued: QueuedTransfer
        let clock: QueuedConnectClock
    }

    /// Notes the transfers this pass handed to libcurl that are waiting for a connection, with
    /// the deadline their timeout sets from when they first went to libcurl, and moves their
    /// connect timeout on where libcurl counts the wait toward it.
    func noteQueuedTransfers() {
        var now: MonotonicInstant?
        for handle in addedInPass {
            guard let transfer = handle.transfer, transfer.waitsForConnection else { continue }
            let instant = now ?? .now
            now = instant
            let entry = QueuedTransfer(handle: handle, transfer: ObjectIdentifier(transfer))
            if let timeout = transfer.timeout {
                let started = transfer.firstAttemptStarted ?? instant
                transfer.firstAttemptStarted = started
                queued.add(entry, until: started + timeout)
            }
            if _slowPath(extendsQueuedConnectTimeouts) {
                let clock = QueuedConnectClock(
                    connectTimeout: CurlTransfer.appliedConnectTimeout(handle.connectTimeout), addedAt: instant)
                extendConnectTimeout(QueuedConnectTimeout(queued: entry, clock: clock), at: instant)
            }
        }
        addedInPass.removeAll(keepingCapacity: true)
        if _slowPath(queued.count > 2 * active.count + 64) { queued.forgetThoseNotWaiting(\.stillWaits) }
        if _slowPath(connectClocks.count > 2 * active.count + 64) {
            connectClocks.forgetThoseNotWaiting(\.queued.stillWaits)
        }
    }

    /// Moves on the connect timeout of each transfer still waiting whose extension is due.
    func extendDueConnectTimeouts() {
        let now = MonotonicInstant.now
        for entry in connectClocks.takeDue(at: now, stillWaits: \.queued.stillWaits) {
            extendConnectTimeout(entry, at: now)
        }
    }

    private func extendConnectTimeout(_ entry: QueuedConnectTimeout, at now: MonotonicInstant) {
        entry.queued.handle.extendConnectTimeout(to: entry.clock.timeout(at: now))
        connectClocks.add(entry, until: now + entry.clock.step)
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
