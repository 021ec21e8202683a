/// Observes the life of every request: for logging, metrics and tracing.
///
/// Every method has a do-nothing default. Monitors run on the callback queue or in the request's
/// task, never on the transfer thread; keep them quick.
public protocol ConnectMonitor: Sendable {
    /// Attempt `attempt` of `request` is about to be sent.
    func requestStarted(_ request: Request, attempt: Int)
    /// The server answered attempt `attempt` (whatever the status).
    func responseReceived(_ response: Response, for request: Request, attempt: Int)
    /// Attempt `attempt` failed with `error` and will be retried after `delay`.
    func retryScheduled(for request: Request, after error: any Error, delay: Duration, attempt: Int)
    /// The request failed for good after `attempts` attempts.
    func requestFailed(_ request: Request, error: any Error, attempts: Int)
}

extension ConnectMonitor {
    public func requestStarted(_ request: Request, attempt: Int) {}
    public func responseReceived(_ response: Response, for request: Request, attempt: Int) {}
    public func retryScheduled(for request: Request, after error: any Error, delay: Duration, attempt: Int) {}
    public func requestFailed(_ request: Request, error: any Error, attempts: Int) {}
}
