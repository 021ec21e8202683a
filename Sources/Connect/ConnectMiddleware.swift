/// Changes a request before each attempt is sent: add headers, sign, rewrite the URL.
public protocol RequestAdapter: Sendable {
    /// The request to send instead of `request`; throwing fails the request with that error.
    func adapt(_ request: Request) async throws -> Request
}

/// What to do after an attempt failed.
public enum RetryDecision: Sendable, Hashable {
    /// Fail with the error.
    case doNotRetry
    /// Send the request again now.
    case retry
    /// Send the request again after waiting.
    case retryAfter(Duration)
}

/// Decides whether a failed attempt is tried again.
public protocol RequestRetrier: Sendable {
    /// Called after attempt number `attempt` (1 for the first) of `request` failed with `error`;
    /// `response` is there when the server answered.
    func retry(_ request: Request, failedWith error: any Error, response: Response?, attempt: Int) async -> RetryDecision
}

/// A middleware adapts every request and decides on retries, as in SwiftConnect.
public protocol ConnectMiddlewareProtocol: RequestAdapter, RequestRetrier {}

/// The default middleware: sends requests as they are and never retries.
public struct ConnectMiddleware: ConnectMiddlewareProtocol {
    /// Creates the pass-through middleware.
    public init() {}

    public func adapt(_ request: Request) async throws -> Request { request }

    public func retry(_ request: Request, failedWith error: any Error, response: Response?, attempt: Int) async -> RetryDecision {
        .doNotRetry
    }
}
