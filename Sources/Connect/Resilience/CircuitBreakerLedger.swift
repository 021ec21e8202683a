import ConnectFutures

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The circuits of one client's ``CircuitBreaker``, one for each origin that has failed lately:
/// an origin whose circuit is closed with no failures counted is not kept. Shared by every
/// exchange of the client (see ``SharedClientState``); monitors hear each change, outside the lock.
final class CircuitBreakerLedger: Sendable {
    let breaker: CircuitBreaker
    private let circuits = Locked<[String: CircuitState]>([:])

    init(breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    /// Whether an attempt to `url` may go now.
    func admit(_ url: URL, monitors: [any ConnectMonitor], at now: MonotonicInstant = .now) -> CircuitState.Admission {
        let origin = url.originKey
        let (admission, changed): (CircuitState.Admission, CircuitBreaker.State?) = circuits.withLock { circuits in
            guard var circuit = circuits[origin] else { return (.send, nil) }
            let (admission, changed) = circuit.admit(at: now)
            circuits[origin] = circuit
            return (admission, changed ? circuit.state(at: now) : nil)
        }
        if let changed { for monitor in monitors { monitor.circuitChanged(for: origin, to: changed) } }
        return admission
    }

    /// Counts the outcome of an attempt to `url`; `probe` when ``admit(_:monitors:at:)`` made it
    /// the probe.
    func record(
        _ outcome: CircuitState.Outcome, probe: Bool, for url: URL, monitors: [any ConnectMonitor],
        at now: MonotonicInstant = .now
    ) {
        let origin = url.originKey
        let changed: CircuitBreaker.State? = circuits.withLock { circuits in
            var circuit = circuits[origin] ?? CircuitState(breaker: breaker)
            let changed = circuit.record(outcome, probe: probe, at: now)
            circuits[origin] = circuit.phase == .closed(failuresInARow: 0) ? nil : circuit
            return changed ? circuit.state(at: now) : nil
        }
        if let changed { for monitor in monitors { monitor.circuitChanged(for: origin, to: changed) } }
    }

    /// The state of the circuit of `url`'s origin.
    func state(for url: URL, at now: MonotonicInstant = .now) -> CircuitBreaker.State {
        circuits.withLock { $0[url.originKey]?.state(at: now) } ?? .closed
    }
}
