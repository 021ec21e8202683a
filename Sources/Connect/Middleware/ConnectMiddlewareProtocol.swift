/// A middleware adapts every request and decides on retries, as in SwiftConnect; it may also
/// bring interceptors and monitors.
public protocol ConnectMiddlewareProtocol: RequestAdapter, RequestRetrier {
    /// Interceptors that prepare each request and process each result, in order.
    var interceptors: [any Interceptor] { get }
    /// Observers of every request's life.
    var monitors: [any ConnectMonitor] { get }
}

extension ConnectMiddlewareProtocol {
    public var interceptors: [any Interceptor] { [] }
    public var monitors: [any ConnectMonitor] { [] }
}
