import ConnectFutures
import Dispatch

/// Carries finished transfers from the transfer thread to the callback queue, where their
/// futures complete; without a callback queue, completes them on the transfer thread at once.
///
/// A drain runs on the callback queue as a ``CompletionDrain``, through `DispatchQueue.sync`: by
/// the loop thread that finished the batch, once it has handed the loop to its other thread (see
/// ``LoopBaton``, `drainHere`), or by a thread of the global pool (`deliver`), which afterwards
/// continues the awaiting tasks the drain resumed. On the main queue, whose blocks only the main
/// thread runs, it is a block queued there instead.
///
/// While a drain is queued or running on the callback queue, later batches join it instead of
/// queueing blocks of their own: under load the callback thread then works through everything
/// that finished in one go, without a dispatch and a thread wakeup per loop pass. Order is kept:
/// batches are completed in the order they were handed over.
final class CompletionHandOff: @unchecked Sendable {
    // @unchecked: `emptied` is touched by the one drain running at a time (see `draining`).
    /// A finished transfer and what it came to. A struct of this module rather than a tuple:
    /// emptying an array of tuples has the runtime walk each element's tuple metadata, where a
    /// struct has value witnesses compiled here.
    struct Finished {
        let transfer: CurlTransfer
        let outcome: Result<ResponseBuffers, any Error>
    }

    private let queue: DispatchQueue?
    private let state = Locked<(waiting: [Finished], draining: Bool)>(([], false))
    /// Where received responses go back to once their `Response` is made.
    private let responseBuffers: ResponseBuffersPool
    /// The received responses of the batch being completed off the transfer thread, given back
    /// to the pool together: one lock per batch rather than one per transfer.
    @exclusivity(unchecked) private var emptied: [ResponseBuffers] = []

    /// The global queue whose thread runs a drain as a ``CompletionDrain``, at the callback
    /// queue's quality of service; `nil` where drains are blocks queued on the callback queue:
    /// on the main queue (see `TransferLoop.completesOnLoopThread`).
    private let drainingPool: DispatchQueue?

    /// `drainsFromPool`: the loop completes on its own thread for `queue` (see
    /// `TransferLoop.completesOnLoopThread`), and drains run from the global pool.
    init(queue: DispatchQueue?, drainsFromPool: Bool, responseBuffers: ResponseBuffersPool) {
        self.queue = queue
        if let queue, drainsFromPool {
            let service = queue.qos.qosClass
            drainingPool = .global(qos: service == .unspecified ? .default : service)
        } else {
            drainingPool = nil
        }
        self.responseBuffers = responseBuffers
    }

    // MARK: The transfer thread

    /// Hands over `batch`, the transfers one pass of the loop settled (see
    /// ``TransferLoop/settle(_:_:)``), and leaves it empty: with many transfers in flight, waking
    /// a callback thread per transfer cost more than the callbacks themselves. Returns `true`
    /// when the calling loop thread is to run the drain itself (``drainHere(as:)``), after handing
    /// the loop over.
    func handOver(_ batch: inout [Finished], drainingHere: Bool) -> Bool {
        guard !batch.isEmpty else { return false }
        // Transfers with progress reports complete behind them, on their own queue. Looked for
        // first: taking none out of the list would still rewrite it.
        if _slowPath(batch.contains(where: { $0.transfer.progressQueue != nil })) {
            completeBehindProgressReports(&batch)
            guard !batch.isEmpty else { return false }
        }
        guard drainingHere else {
            deliver(&batch)
            return false
        }
        return startsDrain(with: &batch)
    }

    /// Takes the finished transfers that report progress out of `batch` and completes each on
    /// its progress queue, after its final report.
    @inline(never)
    private func completeBehindProgressReports(_ batch: inout [Finished]) {
        batch.removeAll { entry in
            let transfer = entry.transfer
            guard let progressQueue = transfer.progressQueue, let handler = transfer.options?.progress else {
                return false
            }
            let final = transfer.progress.latest
            progressQueue.async { [self] in
                handler.report(final)
                complete(entry)
            }
            return true
        }
    }

    /// Queues `batch` for the callback queue and leaves it empty, keeping a buffer's capacity.
    ///
    /// Its drain runs from a thread of the global pool, not as a block of the callback queue, so
    /// that the tasks it resumes continue on that thread once the drain has left the queue: one
    /// thread woken for the batch, where each task resumed on the pool would have most of them
    /// wake one.
    private func deliver(_ batch: inout [Finished]) {
        guard let queue else {
            complete(&batch)
            return
        }
        guard startsDrain(with: &batch) else { return }
        if let drainingPool {
            drainingPool.async { CompletionDrain.run(on: queue) { self.drain() } }
        } else {
            queue.async { self.drain() }
        }
    }

    /// Adds `batch` to the waiting ones; `true` when no drain is queued or running, so that the
    /// caller must start one (the batch joins the running drain otherwise).
    ///
    /// A loop thread that gets `true` may run the drain itself on the callback queue
    /// (`drainHere`), after handing the loop to its standby; only for a callback queue other
    /// than the main queue (see `TransferLoop.completesOnLoopThread`).
    ///
    /// `batch` is left empty. When nothing else waits, it and the waiting list trade buffers,
    /// as the transfer loop's inbox does: the batch is handed over without copying its elements
    /// (a generic copy of each transfer and outcome), and the caller gets back the buffer the
    /// last drain emptied, with its capacity.
    private func startsDrain(with batch: inout [Finished]) -> Bool {
        let mustStart = state.withLock { state -> Bool in
            if state.waiting.isEmpty {
                swap(&state.waiting, &batch)
            } else {
                state.waiting.append(contentsOf: batch)
            }
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        batch.removeAllKeepingBuffer()
        return mustStart
    }

    /// Runs the drain ``handOver(_:drainingHere:)`` asked for on the callback queue from the
    /// calling loop thread (`DispatchQueue.sync`), as `ownDrain`, the thread's own: made at its
    /// first drain and run again for each after, rather than one per response completed there.
    func drainHere(as ownDrain: inout CompletionDrain?) {
        let drain = ownDrain ?? CompletionDrain(queue: queue!)
        ownDrain = drain
        drain.run { self.drain() }
    }

    /// On the callback queue: completes batches until none is waiting.
    ///
    /// Each batch it completes is emptied, keeping its capacity, and traded for the next one, so
    /// that the waiting list, and through it the transfer loop, gets a buffer back.
    private func drain() {
        var batch: [Finished] = []
        while true {
            state.withLock { state in
                swap(&batch, &state.waiting)
                if batch.isEmpty { state.draining = false }
            }
            if batch.isEmpty { return }
            complete(&batch)
        }
    }

    /// Completes the batch's transfers in order and leaves it empty, keeping its capacity.
    ///
    /// Each entry is moved out of the batch (reversed first, then popped from the end) rather
    /// than copied: a copy retains the transfer and its received response, and emptying the
    /// batch afterwards releases them again, all atomic operations.
    private func complete(_ batch: inout [Finished]) {
        batch.reverse()
        // Without a callback queue this is the transfer thread, whose own list needs no lock.
        if queue == nil {
            while let finished = batch.popLast() {
                if let received = finish(finished) { responseBuffers.keep(received) }
            }
        } else {
            while let finished = batch.popLast() {
                if let received = finish(finished) { emptied.append(received) }
            }
            responseBuffers.giveBack(&emptied)
        }
    }

    /// Completes one transfer's future off the callback queue's drain (behind its progress reports).
    private func complete(_ finished: Finished) {
        if let received = finish(finished) { responseBuffers.giveBack(received) }
    }

    /// Makes the response here, off the transfer thread, and completes the future; returns the
    /// received response of a success, emptied, for the pool.
    private func finish(_ finished: consuming Finished) -> ResponseBuffers? {
        let transfer = finished.transfer
        switch finished.outcome {
        case .success(let received):
            let response = received.makeResponse(url: transfer.request.url, onFillingThread: queue == nil)
            transfer.promise.receive(.success(response))
            return received
        case .failure(let error):
            transfer.promise.receive(.failure(error))
            return nil
        }
    }
}
