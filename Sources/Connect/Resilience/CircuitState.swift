import ConnectFutures

/// One origin's circuit as a plain value: attempts ask to go (``admit(at:)``), their outcomes
/// come back (``record(_:probe:at:)``), and each answers what to do and whether the state
/// changed. Driven with explicit instants, so that its rules are tested as a table
/// (`CircuitBreakerTests`); the ``CircuitBreakerLedger`` keeps one for each origin.
struct CircuitState {
    /// How an attempt's answer counts.
    enum Outcome: Equatable {
        /// The origin answered: any response whose status is not a failure status.
        case success
        /// The origin failed: a failure status, a connection that failed, a timeout.
        case failure
        /// Neither: cancelled, never built, refused by the client itself.
        case neither
    }

    /// What an attempt may do.
    enum Admission: Equatable {
        /// Go through.
        case send
        /// Go through as the half-open circuit's probe; its outcome decides.
        case probe
        /// Fail fast: the circuit is open until `nextProbe`, or a probe is under way (`nil`).
        case refuse(nextProbe: MonotonicInstant?)
    }

    enum Phase: Equatable {
        case closed(failuresInARow: Int)
        case open(until: MonotonicInstant, for: Duration)
        /// `probing`: the probe is out. `lastOpening`: how long the circuit was last open.
        case halfOpen(probing: Bool, lastOpening: Duration)
    }

    let breaker: CircuitBreaker
    private(set) var phase: Phase = .closed(failuresInARow: 0)

    init(breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    /// Whether an attempt starting at `now` may go, and whether the state changed for it.
    mutating func admit(at now: MonotonicInstant) -> (Admission, changed: Bool) {
        switch phase {
        case .closed:
            return (.send, false)
        case .open(let until, let duration):
            guard now >= until else { return (.refuse(nextProbe: until), false) }
            phase = .halfOpen(probing: true, lastOpening: duration)
            return (.probe, true)
        case .halfOpen(let probing, let lastOpening):
            guard !probing else { return (.refuse(nextProbe: nil), false) }
            phase = .halfOpen(probing: true, lastOpening: lastOpening)
            return (.probe, false)
        }
    }

    /// Counts an attempt's outcome; `true` when the state changed.
    mutating func record(_ outcome: Outcome, probe: Bool, at now: MonotonicInstant) -> Bool {
        switch (phase, outcome) {
        case (.closed, .success):
            phase = .closed(failuresInARow: 0)
            return false
        case (.closed(let failures), .failure):
            guard failures + 1 >= breaker.failureThreshold else {
                phase = .closed(failuresInARow: failures + 1)
                return false
            }
            phase = .open(until: now + breaker.openDuration, for: breaker.openDuration)
            return true
        case (.halfOpen(_, let lastOpening), _) where probe:
            switch outcome {
            case .success:
                phase = .closed(failuresInARow: 0)
                return true
            case .failure:
                let longer = min(lastOpening * 2, breaker.maximumOpenDuration)
                let next = max(longer, breaker.openDuration)
                phase = .open(until: now + next, for: next)
                return true
            case .neither:
                // The probe told nothing: the next attempt probes instead.
                phase = .halfOpen(probing: false, lastOpening: lastOpening)
                return false
            }
        default:
            // An answer to an attempt sent before the circuit opened, or before the probe: the
            // probe decides, not it.
            return false
        }
    }

    /// How an attempt's answer counts: by its status when a response came, else by its error.
    /// Only what says the origin is unwell counts against it: a connection that could not be
    /// made or broke, a response cut short or not HTTP, a timeout, a TLS failure. What the client
    /// decided itself (cancelled, an invalid request, a budget spent, an open circuit) counts
    /// neither way, nor does a redirect rule's refusal.
    static func outcome(status: Int?, error: (any Error)?, breaker: CircuitBreaker) -> Outcome {
        if let status { return breaker.failureStatuses.contains(status) ? .failure : .success }
        switch error as? ConnectError {
        case .transport(let failure)?:
            return originFailures.contains(failure.kind) ? .failure : .neither
        case .timedOut?, .tls?:
            return .failure
        default:
            return .neither
        }
    }

    /// The transport failures that count against an origin.
    static let originFailures: Set<TransportFailure.Kind> = [
        .connectionRefused, .nameResolution, .connectionReset, .connectionClosed, .streamReset, .truncatedResponse,
        .malformedResponse, .proxy, .other
    ]

    /// The state as the public API shows it, with instants on the continuous clock.
    func state(at now: MonotonicInstant) -> CircuitBreaker.State {
        switch phase {
        case .closed: return .closed
        case .open(let until, _): return .open(nextProbe: ContinuousClock.now + (until - now))
        case .halfOpen: return .halfOpen
        }
    }
}
