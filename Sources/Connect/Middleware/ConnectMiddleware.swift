/// Changes a request before each attempt is sent: add headers, sign, rewrite the URL.
///
/// ```swift
/// struct APIKey: RequestAdapter {
///     func adapt(_ request: Request) async throws -> Request {
///         var request = request
///         request.setHeader(HTTPHeader(name: "X-API-Key", value: "secret"))
///         return request
///     }
/// }
/// ```
/// Adapters run again before every retry, so a refreshed credential is picked up.
public protocol RequestAdapter: Sendable {
    /// The request to send instead of `request`; throwing fails the request with that error.
    func adapt(_ request: Request) async throws -> Request
}

/// What to do after an attempt failed.
public enum RetryDecision: Sendable {
    /// Fail with the attempt's error.
    case doNotRetry
    /// Send the request again now.
    case retry
    /// Send the request again after waiting; the wait blocks no thread.
    case retryAfter(Duration)
    /// Fail with this error instead, e.g. the error of a credential refresh.
    case fail(any Error)
}

/// One failed attempt, as a ``RequestRetrier`` sees it.
public struct FailedAttempt: Sendable {
    /// The request as it was sent (after adapters and interceptors).
    public let request: Request
    /// What went wrong: a ``ConnectError`` or the error handler's error.
    public let error: any Error
    /// The response, when the server answered.
    public let response: Response?
    /// Which attempt failed: 1 for the first.
    public let number: Int
    /// Time since the first attempt started.
    public let elapsed: Duration

    /// Creates a failed attempt (for testing retriers).
    public init(request: Request, error: any Error, response: Response?, number: Int, elapsed: Duration) {
        self.request = request
        self.error = error
        self.response = response
        self.number = number
        self.elapsed = elapsed
    }
}

/// Decides whether a failed attempt is tried again.
public protocol RequestRetrier: Sendable {
    /// The decision for `attempt`. Never called for a cancelled request.
    func retry(_ attempt: FailedAttempt) async -> RetryDecision
}

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
public struct ConnectMiddleware: ConnectMiddlewareProtocol {
    /// Adapt each request, in order.
    public var adapters: [any RequestAdapter]
    /// Asked in order after a failed attempt; the first that does not answer `.doNotRetry` decides.
    public var retriers: [any RequestRetrier]
    public var interceptors: [any Interceptor]
    public var monitors: [any ConnectMonitor]

    /// Creates a middleware; with no arguments it adapts nothing and retries nothing.
    public init(
        adapters: [any RequestAdapter] = [],
        retriers: [any RequestRetrier] = [],
        interceptors: [any Interceptor] = [],
        monitors: [any ConnectMonitor] = []
    ) {
        self.adapters = adapters
        self.retriers = retriers
        self.interceptors = interceptors
        self.monitors = monitors
    }

    /// A middleware with one retrier, e.g. `ConnectMiddleware(retrier: RetryPolicy())`.
    public init(adapters: [any RequestAdapter] = [], retrier: any RequestRetrier) {
        self.init(adapters: adapters, retriers: [retrier])
    }

    /// `true` when it does nothing at all, so `Connect` can skip it.
    var isPassthrough: Bool {
        adapters.isEmpty && retriers.isEmpty && interceptors.isEmpty && monitors.isEmpty
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
