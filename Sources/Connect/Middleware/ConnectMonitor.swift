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
    /// The ``CircuitBreaker``'s circuit for `origin` (`https://api.example.com:443`) changed to
    /// `state`: opened after a run of failures, half open for a probe, closed again.
    func circuitChanged(for origin: String, to state: CircuitBreaker.State)
}

extension ConnectMonitor {
    public func requestStarted(_ request: Request, attempt: Int) {}
    public func responseReceived(_ response: Response, for request: Request, attempt: Int) {}
    public func retryScheduled(for request: Request, after error: any Error, delay: Duration, attempt: Int) {}
    public func requestFailed(_ request: Request, error: any Error, attempts: Int) {}
    public func circuitChanged(for origin: String, to state: CircuitBreaker.State) {}
}
