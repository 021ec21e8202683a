/// A middleware adapts every request and decides on retries, as in SwiftConnect; it may also
/// bring interceptors and monitors.
public protocol ConnectMiddlewareProtocol: RequestAdapter, RequestRetrier {
    /// Interceptors that prepare each request and process each result, in order.
    var interceptors: [any Interceptor] { get }
    /// Observers of every request's life.
    var monitors: [any ConnectMonitor] { get }
    /// The bound on retries across the client's requests; `nil` for none. See ``RetryBudget``.
    var retryBudget: RetryBudget? { get }
    /// Fails requests to an origin fast while it is down; `nil` for none. See ``CircuitBreaker``.
    var circuitBreaker: CircuitBreaker? { get }
    /// Sends a second attempt of a slow request that may be repeated; `nil` for none. See ``Hedging``.
    var hedging: Hedging? { get }
}

extension ConnectMiddlewareProtocol {
    public var interceptors: [any Interceptor] { [] }
    public var monitors: [any ConnectMonitor] { [] }
    /// No budget: the middleware's retriers alone decide.
    public var retryBudget: RetryBudget? { nil }
    /// No circuit breaker.
    public var circuitBreaker: CircuitBreaker? { nil }
    /// No hedging.
    public var hedging: Hedging? { nil }
}
