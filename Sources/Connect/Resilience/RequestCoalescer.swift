import ConnectFutures
import Dispatch

/// Identical requests in flight at once share one transfer (see
/// ``ConnectConfiguration/coalescesIdenticalRequests``): the first goes out, the others wait for
/// its answer, and each of them gets that answer, or its failure.
///
/// Every caller has a future of its own. Cancelling it takes that caller alone out; the shared
/// transfer is cancelled when the last caller leaves, and the next identical request starts
/// afresh. A caller whose own timeout ends before the shared transfer's fails with a timeout at
/// its own deadline. The decisions are ``CoalescingKey`` (who shares) and ``CoalescedFlight``
/// (who waits); this class keeps the flights of one client and runs what they decide.
final class RequestCoalescer: Sendable {
    /// The flights in progress by key; a flight leaves when its answer lands or its last caller
    /// leaves.
    private let flights = Locked<[CoalescingKey: Flight]>([:])
    /// The client's timeout, for a request that has none of its own.
    private let defaultTimeout: Duration

    init(defaultTimeout: Duration) {
        self.defaultTimeout = defaultTimeout
    }

    /// The number of flights in progress.
    var flightCount: Int { flights.withLock { $0.count } }

    /// The number of callers waiting for the flights in progress.
    var waitingCount: Int { flights.withLock { $0.values.reduce(0) { $0 + $1.waiting } } }

    /// The answer to `request`, whose key is `key`: the answer of the flight in progress for an
    /// identical request, or, when there is none, of `send()`, which identical requests share
    /// until it lands.
    ///
    /// - Returns: the caller's own future, and whether it joined a flight another caller started
    ///   (`send` did not run).
    func response(
        to request: Request, key: CoalescingKey, send: () -> Future<Response>
    ) -> (response: Future<Response>, joined: Bool) {
        // A caller that cancels fails as every cancelled request does; cancelling a step after
        // this promise cancels the promise first, and its error is what the step may pass on.
        let promise = Promise<Response>(cancellationError: ConnectError.cancelled)
        let deadline = MonotonicInstant.now + (request.timeout ?? defaultTimeout)
        let (flight, id, joined) = flights.withLock { flights -> (Flight, Int, Bool) in
            if let flight = flights[key], let id = flight.join(promise) { return (flight, id, true) }
            let flight = Flight(deadline: deadline)
            flights[key] = flight
            return (flight, flight.join(promise) ?? 0, false)
        }
        promise.onCancel { [self] in leave(flight, id, key: key) }
        if joined {
            if deadline < flight.deadline { fail(promise, id, of: flight, key: key, at: deadline) }
        } else {
            let transfer = send()
            flight.carry(transfer)
            transfer.observe { [self] result in land(flight, key: key, with: result) }
        }
        return (promise.future, joined)
    }

    /// The caller `id` of `flight` stops waiting; the transfer is cancelled if it was the last.
    private func leave(_ flight: Flight, _ id: Int, key: CoalescingKey) {
        guard let transfer = flight.leave(id) else { return }
        forget(flight, key: key)
        transfer.cancel()
    }

    /// `flight` takes no more callers: a request with `key` from now on starts a flight of its
    /// own. A later flight under the same key, started meanwhile, stays.
    private func forget(_ flight: Flight, key: CoalescingKey) {
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
    }

    /// The shared answer landed: every caller still waiting gets it.
    private func land(_ flight: Flight, key: CoalescingKey, with result: Result<Response, any Error>) {
        forget(flight, key: key)
        for waiter in flight.land() {
            waiter.complete(result)
        }
    }

    /// Fails the caller `id` at `deadline`, its own, earlier than the shared transfer's.
    private func fail(
        _ promise: Promise<Response>, _ id: Int, of flight: Flight, key: CoalescingKey, at deadline: MonotonicInstant
    ) {
        let wait = max(deadline - MonotonicInstant.now, .zero)
        DispatchQueue.global().asyncAfter(deadline: .now() + wait.dispatchInterval) { [self] in
            let message = "the request took longer than its timeout while it waited for an identical request's answer"
            if promise.fail(ConnectError.timedOut(message)) {
                leave(flight, id, key: key)
            }
        }
    }

    /// One transfer and the callers that wait for it.
    final class Flight: Sendable {
        /// When the transfer times out: its first caller's deadline.
        let deadline: MonotonicInstant
        private let state = Locked<(callers: CoalescedFlight<Promise<Response>>, transfer: Future<Response>?)>(
            (CoalescedFlight(), nil))

        init(deadline: MonotonicInstant) {
            self.deadline = deadline
        }

        /// How many callers wait.
        var waiting: Int { state.withLock { $0.callers.waiting } }

        func join(_ promise: Promise<Response>) -> Int? {
            state.withLock { $0.callers.join(promise) }
        }

        /// Keeps the transfer to cancel; cancels it at once if every caller left already.
        func carry(_ transfer: Future<Response>) {
            let abandoned = state.withLock { state -> Bool in
                guard state.callers.isOpen else { return true }
                state.transfer = transfer
                return false
            }
            if abandoned { transfer.cancel() }
        }

        /// The caller `id` leaves; the transfer to cancel when it was the last.
        func leave(_ id: Int) -> Future<Response>? {
            state.withLock { state in
                guard state.callers.leave(id) == .cancelTransfer else { return nil }
                defer { state.transfer = nil }
                return state.transfer
            }
        }

        /// The callers still waiting, now that the answer landed.
        func land() -> [Promise<Response>] {
            state.withLock { state in
                state.transfer = nil
                return state.callers.land()
            }
        }
    }
}
