import ConnectFutures
import Dispatch

/// Carries finished transfers from the transfer thread to the callback queue, where their
/// futures complete.
///
/// While a drain is queued or running on the callback queue, later batches join it instead of
/// queueing blocks of their own: under load the callback thread then works through everything
/// that finished in one go, without a dispatch and a thread wakeup per loop pass. Order is kept:
/// batches are completed in the order they were handed over.
final class CompletionHandOff: Sendable {
    typealias Finished = (transfer: CurlTransfer, outcome: Result<Response, any Error>)

    private let queue: DispatchQueue
    private let state = Locked<(waiting: [Finished], draining: Bool)>(([], false))

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Queues `batch` for the callback queue. Called by the transfer thread.
    func deliver(_ batch: [Finished]) {
        let startsDrain = state.withLock { state -> Bool in
            state.waiting.append(contentsOf: batch)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if startsDrain {
            queue.async { self.drain() }
        }
    }

    /// On the callback queue: completes batches until none is waiting.
    private func drain() {
        while true {
            let batch = state.withLock { state -> [Finished] in
                var taken: [Finished] = []
                swap(&taken, &state.waiting)
                if taken.isEmpty { state.draining = false }
                return taken
            }
            if batch.isEmpty { return }
            for (transfer, outcome) in batch {
                transfer.promise.completeOnCallbackQueue(outcome)
                // May release the last reference to the transport; its deinit only queues a stop.
                transfer.owner = nil
            }
        }
    }
}
