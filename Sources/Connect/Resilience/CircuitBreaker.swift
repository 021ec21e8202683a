/// Fails requests to an origin fast while it is down, and lets one probe at a time find out
/// when it is back.
///
/// A run of ``failureThreshold`` failures in a row (a connection that fails, a timeout, a status
/// in ``failureStatuses``) *opens* the origin's circuit: for ``openDuration`` its requests fail at
/// once with a ``TransportFailure/Kind/circuitOpen`` failure, without a connection, and the
/// failure's ``TransportFailure/retryNotBefore`` says when the next probe goes. Then the circuit is
/// *half open*: one request goes through as a probe while the others still fail fast; a
/// success closes the circuit, a failure opens it again for twice as long as the last time, up to
/// ``maximumOpenDuration``.
///
/// ```swift
/// let connect = Connect(middleware: ConnectMiddleware(
///     retriers: [RetryPolicy()],
///     circuitBreaker: CircuitBreaker(failureThreshold: 5, openDuration: .seconds(30))))
/// ```
/// The defaults are Envoy's outlier detection's: five failures in a row, thirty seconds for the
/// first opening, five minutes at most. Each origin (scheme, host and port) has a circuit of its
/// own, and each ``Connect`` its own circuits. A response that is not a failure, a 404 included,
/// ends a run of failures; a cancelled request, or one that could not be built, counts neither
/// way. Monitors hear each change (``ConnectMonitor/circuitChanged(for:to:)``).
public struct CircuitBreaker: Sendable, Hashable {
    /// The state of one origin's circuit.
    public enum State: Sendable, Hashable, CustomStringConvertible {
        /// Requests go through.
        case closed
        /// Requests fail fast until the next probe, at the instant given.
        case open(nextProbe: ContinuousClock.Instant)
        /// One request goes through as a probe; the others fail fast until it is answered.
        case halfOpen

        public var description: String {
            switch self {
            case .closed: return "closed"
            case .open(let nextProbe): return "open for \(max(nextProbe - .now, .zero).secondsAndMilliseconds)"
            case .halfOpen: return "half open"
            }
        }
    }

    /// Failures in a row that open the circuit.
    public var failureThreshold: Int
    /// How long the circuit stays open the first time, before a probe goes.
    public var openDuration: Duration
    /// The longest it stays open: each failed probe doubles the last wait, up to this.
    public var maximumOpenDuration: Duration
    /// Statuses that count as the origin failing, as connection failures and timeouts do.
    public var failureStatuses: Set<Int>

    /// Creates a breaker; the defaults open after five failures in a row, for thirty seconds.
    public init(
        failureThreshold: Int = 5, openDuration: Duration = .seconds(30), maximumOpenDuration: Duration = .seconds(300),
        failureStatuses: Set<Int> = [500, 502, 503, 504]
    ) {
        self.failureThreshold = max(failureThreshold, 1)
        self.openDuration = max(openDuration, .zero)
        self.maximumOpenDuration = max(maximumOpenDuration, self.openDuration)
        self.failureStatuses = failureStatuses
    }
}
