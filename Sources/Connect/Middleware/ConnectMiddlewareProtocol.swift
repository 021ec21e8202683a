/// A middleware adapts every request and decides on retries, as in SwiftConnect; it may also
/// bring interceptors and monitors.
public protocol ConnectMiddlewareProtocol: RequestAdapter, RequestRetrier {
    /// Interceptors that prepare each request and process each result, in order.
    var interceptors: [any Interceptor] { get }
    /// Observers of every request's life.
    var monitors: [any ConnectMonitor] { get }
    /// The bound on retries across the client's requests; `nil` for none. See ``RetryBudget``.
    var retryBudget: RetryBudget? { get }
}

extension ConnectMiddlewareProtocol {
    public var interceptors: [any Interceptor] { [] }
    public var monitors: [any ConnectMonitor] { [] }
    /// No budget: the middleware's retriers alone decide.
    public var retryBudget: RetryBudget? { nil }
}
