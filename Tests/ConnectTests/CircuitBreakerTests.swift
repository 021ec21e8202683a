import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// The circuit breaker: one origin's circuit as a value driven by explicit instants (a table of
/// attempts and outcomes), how answers count, the ledger's circuits per origin, and against a
/// real server that goes down and comes back, requests failing fast, the probe, and the monitors.
@Suite("Circuit breaker")
struct CircuitBreakerTests {
    enum Step: Sendable, CustomStringConvertible {
        /// An attempt asks to go at a millisecond; what it is told, and whether the state changed.
        case admit(Int64, CircuitState.Admission, changed: Bool = false)
        /// An outcome arrives at a millisecond; whether the state changed, and the phase after.
        case record(Int64, CircuitState.Outcome, probe: Bool = false, changed: Bool, then: CircuitState.Phase)

        var description: String {
            switch self {
            case .admit(let at, let admission, _): return "admit at \(at) ms → \(admission)"
            case .record(let at, let outcome, let probe, _, let then):
                return "\(outcome)\(probe ? " of the probe" : "") at \(at) ms → \(then)"
            }
        }
    }

    struct CircuitCase: Sendable, CustomStringConvertible {
        let name: String
        let breaker: CircuitBreaker
        let steps: [Step]
        var description: String { name }
    }

    /// Milliseconds from a start far from zero.
    static func at(_ milliseconds: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: (1_000_000 + milliseconds) * 1_000_000)
    }

    static let three = CircuitBreaker(failureThreshold: 3, openDuration: .seconds(1), maximumOpenDuration: .seconds(3))

    static let circuitCases: [CircuitCase] = [
        CircuitCase(
            name: "failures in a row open it; a success in between starts the count again",
            breaker: three,
            steps: [
                .record(0, .failure, changed: false, then: .closed(failuresInARow: 1)),
                .record(1, .failure, changed: false, then: .closed(failuresInARow: 2)),
                .record(2, .success, changed: false, then: .closed(failuresInARow: 0)),
                .record(3, .failure, changed: false, then: .closed(failuresInARow: 1)),
                .record(4, .neither, changed: false, then: .closed(failuresInARow: 1)),
                .record(5, .failure, changed: false, then: .closed(failuresInARow: 2)),
                .admit(6, .send),
                .record(7, .failure, changed: true, then: .open(until: at(1_007), for: .seconds(1))),
                .admit(8, .refuse(nextProbe: at(1_007))),
                .admit(1_006, .refuse(nextProbe: at(1_007)))
            ]),
        CircuitCase(
            name: "the probe's success closes it; others wait while it is out",
            breaker: three,
            steps: [
                .record(0, .failure, changed: false, then: .closed(failuresInARow: 1)),
                .record(0, .failure, changed: false, then: .closed(failuresInARow: 2)),
                .record(0, .failure, changed: true, then: .open(until: at(1_000), for: .seconds(1))),
                .admit(1_000, .probe, changed: true),
                .admit(1_001, .refuse(nextProbe: nil)),
                // An answer to an attempt sent before it opened does not decide.
                .record(1_002, .success, changed: false, then: .halfOpen(probing: true, lastOpening: .seconds(1))),
                .record(1_003, .success, probe: true, changed: true, then: .closed(failuresInARow: 0)),
                .admit(1_004, .send)
            ]),
        CircuitCase(
            name: "each failed probe doubles the wait, up to the maximum",
            breaker: three,
            steps: [
                .record(0, .failure, changed: false, then: .closed(failuresInARow: 1)),
                .record(0, .failure, changed: false, then: .closed(failuresInARow: 2)),
                .record(0, .failure, changed: true, then: .open(until: at(1_000), for: .seconds(1))),
                .admit(1_000, .probe, changed: true),
                .record(1_100, .failure, probe: true, changed: true, then: .open(until: at(3_100), for: .seconds(2))),
                .admit(3_000, .refuse(nextProbe: at(3_100))),
                .admit(3_100, .probe, changed: true),
                .record(3_200, .failure, probe: true, changed: true, then: .open(until: at(6_200), for: .seconds(3))),
                .admit(6_200, .probe, changed: true),
                .record(6_300, .failure, probe: true, changed: true, then: .open(until: at(9_300), for: .seconds(3))),
                .admit(9_300, .probe, changed: true),
                .record(9_400, .success, probe: true, changed: true, then: .closed(failuresInARow: 0)),
                // Closed again, the next opening is the first one's length again.
                .record(9_500, .failure, changed: false, then: .closed(failuresInARow: 1)),
                .record(9_500, .failure, changed: false, then: .closed(failuresInARow: 2)),
                .record(9_500, .failure, changed: true, then: .open(until: at(10_500), for: .seconds(1)))
            ]),
        CircuitCase(
            name: "a probe that tells nothing hands the probe to the next attempt",
            breaker: CircuitBreaker(failureThreshold: 1, openDuration: .zero),
            steps: [
                .record(0, .failure, changed: true, then: .open(until: at(0), for: .zero)),
                .admit(0, .probe, changed: true),
                .admit(0, .refuse(nextProbe: nil)),
                .record(1, .neither, probe: true, changed: false, then: .halfOpen(probing: false, lastOpening: .zero)),
                .admit(2, .probe),
                .record(3, .failure, probe: true, changed: true, then: .open(until: at(3), for: .zero))
            ])
    ]

    @Test(arguments: circuitCases)
    func circuit(_ row: CircuitCase) {
        var circuit = CircuitState(breaker: row.breaker)
        for (index, step) in row.steps.enumerated() {
            switch step {
            case .admit(let at, let expected, let expectChange):
                let (admission, changed) = circuit.admit(at: Self.at(at))
                #expect(admission == expected && changed == expectChange, "step \(index): \(step), got \(admission)")
            case .record(let at, let outcome, let probe, let expectChange, let then):
                let changed = circuit.record(outcome, probe: probe, at: Self.at(at))
                #expect(
                    changed == expectChange && circuit.phase == then, "step \(index): \(step), got \(circuit.phase)")
            }
        }
    }

    struct OutcomeCase: Sendable, CustomStringConvertible {
        let name: String
        let status: Int?
        let error: ConnectError?
        let expected: CircuitState.Outcome
        var description: String { name }
    }

    static func transport(_ kind: TransportFailure.Kind) -> ConnectError {
        .transport(TransportFailure(kind: kind, message: "", requestSent: true))
    }

    @Test(arguments: [
        OutcomeCase(name: "200", status: 200, error: nil, expected: .success),
        OutcomeCase(name: "404 is the app's answer", status: 404, error: nil, expected: .success),
        OutcomeCase(name: "429 is not an outage", status: 429, error: nil, expected: .success),
        OutcomeCase(name: "503", status: 503, error: nil, expected: .failure),
        OutcomeCase(name: "500", status: 500, error: nil, expected: .failure),
        OutcomeCase(name: "refused", status: nil, error: transport(.connectionRefused), expected: .failure),
        OutcomeCase(name: "reset", status: nil, error: transport(.connectionReset), expected: .failure),
        OutcomeCase(name: "truncated", status: nil, error: transport(.truncatedResponse), expected: .failure),
        OutcomeCase(name: "timed out", status: nil, error: .timedOut("slow"), expected: .failure),
        OutcomeCase(name: "TLS", status: nil, error: .tls(code: 60, message: "expired"), expected: .failure),
        OutcomeCase(name: "cancelled", status: nil, error: .cancelled, expected: .neither),
        OutcomeCase(name: "invalid", status: nil, error: .invalidRequest("no"), expected: .neither),
        OutcomeCase(name: "an open circuit", status: nil, error: transport(.circuitOpen), expected: .neither),
        OutcomeCase(name: "a spent budget", status: nil, error: transport(.retryBudgetExhausted), expected: .neither),
        OutcomeCase(name: "a redirect rule", status: nil, error: transport(.insecureRedirect), expected: .neither),
        OutcomeCase(name: "a local file", status: nil, error: transport(.localFile), expected: .neither)
    ])
    func outcomes(_ row: OutcomeCase) {
        #expect(CircuitState.outcome(status: row.status, error: row.error, breaker: CircuitBreaker()) == row.expected)
    }

    @Test func theLedgerKeepsOnlyFailingOriginsAndTellsMonitors() {
        let monitor = CircuitMonitor()
        let ledger = CircuitBreakerLedger(breaker: CircuitBreaker(failureThreshold: 2, openDuration: .seconds(5)))
        let a = URL(string: "http://127.0.0.1:8001/x")!
        let b = URL(string: "http://127.0.0.1:8002/x")!
        let start = Self.at(0)
        ledger.record(.failure, probe: false, for: a, monitors: [monitor], at: start)
        ledger.record(.failure, probe: false, for: a, monitors: [monitor], at: start)
        #expect(ledger.admit(a, monitors: [monitor], at: start) == .refuse(nextProbe: start + .seconds(5)))
        #expect(ledger.admit(b, monitors: [monitor], at: start) == .send, "another origin, another circuit")
        #expect(ledger.admit(URL(string: "HTTP://127.0.0.1:8001/other")!, monitors: [], at: start) != .send)
        #expect(ledger.admit(a, monitors: [monitor], at: start + .seconds(5)) == .probe)
        ledger.record(.success, probe: true, for: a, monitors: [monitor], at: start + .seconds(6))
        #expect(ledger.state(for: a) == .closed)
        let states = monitor.changes.withLock { $0.map(\.1) }
        #expect(
            states.count == 3 && states[0].hasPrefix("open for ") && states[1...] == ["half open", "closed"],
            "\(states)")
        #expect(monitor.changes.withLock { $0.map(\.0) } == Array(repeating: "http://127.0.0.1:8001", count: 3))
    }

    /// A server that is down: three failures open the circuit, and the requests after fail at
    /// once without reaching it, saying when the next probe goes. The retry policy does not
    /// retry into the open circuit: a request whose retries opened it ends there.
    @Test func anOriginThatIsDownFailsFast() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next()
            return TestResponse(status: 503)
        }
        defer { server.shutdown() }
        let monitor = CircuitMonitor()
        // Open for ten minutes: no loaded machine reaches the probe during the test.
        let breaker = CircuitBreaker(failureThreshold: 3, openDuration: .seconds(600))
        let connect = Connect(
            middleware: ConnectMiddleware(
                retriers: [quickPolicy], monitors: [monitor], retryBudget: nil, circuitBreaker: breaker))

        // Three attempts: 503, 503, 503 opens it; the policy would retry again, but the breaker ends it.
        let first = await connectError(connect.request(TestConnector(server, "/")))
        #expect(first?.statusCode == 503)
        #expect(hits.value == 3)

        let started = ContinuousClock.now
        let refused = await connectError(connect.request(TestConnector(server, "/")))
        guard case .transport(let failure)? = refused else {
            Issue.record("expected the open circuit's failure, got \(String(describing: refused))")
            return
        }
        #expect(failure.kind == .circuitOpen && !failure.requestSent)
        #expect(failure.message.contains("the circuit of \(server.baseURL.originKey) is open after 3 failures"))
        if let next = failure.retryNotBefore {
            #expect(next > started + .seconds(500) && next < ContinuousClock.now + .seconds(601))
        } else {
            Issue.record("an open circuit says when the next probe goes")
        }
        #expect(hits.value == 3, "refused without a connection")
        #expect(monitor.changes.withLock { $0.map(\.1) }.first?.hasPrefix("open for") == true)
        if case .open = connect.client.circuitBreaker?.state(for: server.baseURL) {
        } else {
            Issue.record("the circuit is open")
        }

        // Another origin goes through.
        let other = try TestServer { _ in .text("fine") }
        defer { other.shutdown() }
        #expect(try await connect.request(TestConnector(other, "/")).value == Data("fine".utf8))
    }

    /// An origin that comes back. With no wait before the probe, the first request after the
    /// circuit opened is the probe; the server holds it, and meanwhile another request fails
    /// fast with no probe time. Cancelled, the probe tells nothing, and the next request probes
    /// instead (once the cancelled exchange has handed the probe back, which follows its future's
    /// cancellation by a moment); its success closes the circuit.
    @Test func theProbeClosesTheCircuitWhenTheOriginIsBack() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            switch hits.next() {
            case 1, 2: return TestResponse(status: 502)
            case 3: return TestResponse(behavior: .stall)
            default: return .text("back")
            }
        }
        defer { server.shutdown() }
        let monitor = CircuitMonitor()
        let breaker = CircuitBreaker(failureThreshold: 2, openDuration: .zero)
        let connect = Connect(middleware: ConnectMiddleware(monitors: [monitor], circuitBreaker: breaker))

        for _ in 0..<2 { #expect(await connectError(connect.request(TestConnector(server, "/")))?.statusCode == 502) }

        let probe = connect.request(TestConnector(server, "/"))
        // The probe is out once the server has it; the server never answers it.
        while hits.value < 3 { try await Task.sleep(for: .milliseconds(5)) }
        let waiting = await connectError(connect.request(TestConnector(server, "/")))
        guard case .transport(let failure)? = waiting, failure.kind == .circuitOpen else {
            Issue.record("expected a fast failure while the probe is out, got \(String(describing: waiting))")
            probe.cancel()
            return
        }
        #expect(failure.retryNotBefore == nil && failure.message.contains("a probe is under way"))
        probe.cancel()
        #expect(await connectError(probe) == .cancelled)

        // The cancelled future completes at once; the exchange's task hands the probe back a
        // moment later, and until then a request is still refused without reaching the server.
        let next = try await eventually({ await outcome(connect.request(TestConnector(server, "/"))) }) { next in
            guard case .failure(let error) = next, case .transport(let refusal)? = error as? ConnectError else {
                return true
            }
            return refusal.kind != .circuitOpen
        }
        #expect(try next.get() == Data("back".utf8))
        #expect(try await connect.request(TestConnector(server, "/")).value == Data("back".utf8))
        #expect(hits.value == 5)
        let states = monitor.changes.withLock { $0.map(\.1) }
        #expect(states.count == 3 && states[0].hasPrefix("open") && states[1] == "half open" && states[2] == "closed")
    }

    @Test func aBreakerAloneTakesTheMiddlewarePath() {
        let middleware = ConnectMiddleware(circuitBreaker: CircuitBreaker())
        #expect(!middleware.isPassthrough)
        #expect(Connect(middleware: middleware).client.circuitBreaker != nil)
        #expect(Connect().client.circuitBreaker == nil)
    }
}

/// Records each circuit change: the origin and the state's description.
final class CircuitMonitor: ConnectMonitor {
    let changes = Locked<[(String, String)]>([])
    func circuitChanged(for origin: String, to state: CircuitBreaker.State) {
        changes.withLock { $0.append((origin, "\(state)")) }
    }
}
