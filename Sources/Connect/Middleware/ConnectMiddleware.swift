/// The middleware `Connect` uses: adapters, retriers, interceptors and monitors, each optional.
///
/// ```swift
/// let connect = Connect(middleware: ConnectMiddleware(
///     adapters: [APIKey()],
///     retriers: [RetryPolicy()],
///     monitors: [LoggingMonitor(logger: logger)]
/// ))
/// ```
/// With nothing in it (`ConnectMiddleware()`, the default) requests go straight to the
/// transport, on the fastest path.
///
/// An adapter that is also a ``RequestRetrier`` (a ``TokenAuthenticator``) is asked about
/// retries too, after the `retriers`: listing it once, in `adapters`, is enough.
///
/// Retries across all of the client's requests stay within ``retryBudget`` (by default a fifth
/// of the requests, plus ten a second; see ``RetryBudget``).
public struct ConnectMiddleware: ConnectMiddlewareProtocol {
    /// Adapt each request, in order.
    public var adapters: [any RequestAdapter]
    /// Asked in order after a failed attempt; the first that does not answer `.doNotRetry` decides.
    public var retriers: [any RequestRetrier]
    public var interceptors: [any Interceptor]
    public var monitors: [any ConnectMonitor]
    /// The bound on retries across the client's requests: ``RetryBudget/default`` unless given
    /// another, `nil` for none.
    public var retryBudget: RetryBudget?
    /// Fails requests to an origin fast while it is down: `nil` (the default) for none. See
    /// ``CircuitBreaker``.
    public var circuitBreaker: CircuitBreaker?
    /// Sends a second attempt of a slow GET, HEAD or keyed request: `nil` (the default) for
    /// none. See ``Hedging``.
    public var hedging: Hedging?

    /// Creates a middleware; with no arguments it adapts nothing and retries nothing.
    ///
    /// Adapters that are also retriers join `retriers` at the end, unless they are already there.
    public init(
        adapters: [any RequestAdapter] = [],
        retriers: [any RequestRetrier] = [],
        interceptors: [any Interceptor] = [],
        monitors: [any ConnectMonitor] = [],
        retryBudget: RetryBudget? = .default,
        circuitBreaker: CircuitBreaker? = nil,
        hedging: Hedging? = nil
    ) {
        self.adapters = adapters
        self.retriers =
            retriers
            + adapters.compactMap { adapter -> (any RequestRetrier)? in
                guard let retrier = adapter as? any RequestRetrier else { return nil }
                // A class listed in both is asked once; a value type cannot be told apart from a copy.
                let listed = retriers.contains { ($0 as AnyObject) === (retrier as AnyObject) }
                return listed ? nil : retrier
            }
        self.interceptors = interceptors
        self.monitors = monitors
        self.retryBudget = retryBudget
        self.circuitBreaker = circuitBreaker
        self.hedging = hedging
    }

    /// A middleware with one retrier, e.g. `ConnectMiddleware(retrier: RetryPolicy())`.
    public init(
        adapters: [any RequestAdapter] = [], retrier: any RequestRetrier, retryBudget: RetryBudget? = .default
    ) {
        self.init(adapters: adapters, retriers: [retrier], retryBudget: retryBudget)
    }

    /// `true` when it does nothing at all, so `Connect` can skip it.
    var isPassthrough: Bool {
        adapters.isEmpty && retriers.isEmpty && interceptors.isEmpty && monitors.isEmpty && circuitBreaker == nil
            && hedging == nil
    }

    public func adapt(_ request: Request) async throws -> Request {
        var request = request
        for adapter in adapters {
            request = try await adapter.adapt(request)
        }
        return request
    }

    public func retry(_ attempt: FailedAttempt) async -> RetryDecision {
        for retrier in retriers {
            let decision = await retrier.retry(attempt)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }
}
