import Dispatch

// Handing finished transfers to the callback queue (CompletionHandOff).
extension TransferLoop {
    func deliver(_ transfer: consuming CurlTransfer, _ outcome: consuming Result<ResponseBuffers, any Error>) {
        if let received = transfer.received {
            // Failed: what it received never leaves this thread.
            transfer.received = nil
            responseBuffers.reclaim(received)
        }
        finished.append(CompletionHandOff.Finished(transfer: transfer, outcome: outcome))
    }

    /// One hand-off for everything that finished in this pass: with many transfers in flight,
    /// waking a callback thread per transfer cost more than the callbacks themselves. Returns
    /// `true` when this thread is to run the drain itself, after handing the loop over.
    func deliverFinished(drainingHere: Bool) -> Bool {
        guard !finished.isEmpty else { return false }
        // Transfers with progress reports complete behind them, on their own queue. Looked for
        // first: taking none out of the list would still rewrite it.
        if _slowPath(finished.contains(where: { $0.transfer.progressQueue != nil })) {
            completeBehindProgressReports()
            guard !finished.isEmpty else { return false }
        }
        guard drainingHere else {
            handOff.deliver(&finished)
            return false
        }
        return handOff.startsDrain(with: &finished)
    }

    /// Takes the finished transfers that report progress out of `finished` and completes each
    /// on its progress queue, after its final report.
    @inline(never)
    func completeBehindProgressReports() {
        finished.removeAll { entry in
            let transfer = entry.transfer
            guard let progressQueue = transfer.progressQueue, let handler = transfer.options?.progress else {
                return false
            }
            let final = transfer.latestProgress
            progressQueue.async { [handOff] in
                handler.report(final)
                handOff.complete(entry)
            }
            return true
        }
    }
}
