/// When an event stream reconnects after its connection drops, and when it gives up.
///
/// ```swift
/// connect.events(FeedConnector.live, reconnection: ReconnectionPolicy(maximumAttempts: 10))
/// connect.events(JobConnector.progress(id), reconnection: .never)
/// ```
/// The wait before a reconnection is the server's `retry` (or ``delay`` until it sends one),
/// doubled for each attempt in a row that brings no event, at most ``maximumDelay``.
public struct ReconnectionPolicy: Sendable, Hashable {
    /// Reconnections in a row without an event before the stream fails; 0 never reconnects.
    public var maximumAttempts: Int
    /// The wait before reconnecting until the server sends a `retry`.
    public var delay: Duration
    /// The longest wait, whatever the server asks or backoff makes of it.
    public var maximumDelay: Duration

    /// Creates a policy.
    public init(maximumAttempts: Int = 5, delay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60)) {
        self.maximumAttempts = max(maximumAttempts, 0)
        self.delay = delay
        self.maximumDelay = maximumDelay
    }

    /// Up to 5 reconnections in a row, 3 s apart unless the server says otherwise.
    public static let `default` = ReconnectionPolicy()
    /// No reconnection: the stream ends when its connection does.
    public static let never = ReconnectionPolicy(maximumAttempts: 0)

    /// The wait before reconnection number `attempt` (from 1) in a row, the server having asked
    /// for `serverRetry`.
    func wait(beforeAttempt attempt: Int, serverRetry: Duration?) -> Duration {
        var wait = serverRetry ?? delay
        for _ in 1..<max(attempt, 1) where wait < maximumDelay { wait = wait * 2 }
        return min(wait, maximumDelay)
    }
}
