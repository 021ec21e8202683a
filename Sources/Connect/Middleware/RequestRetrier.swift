/// Decides whether a failed attempt is tried again.
public protocol RequestRetrier: Sendable {
    /// The decision for `attempt`. Never called for a cancelled request.
    func retry(_ attempt: FailedAttempt) async -> RetryDecision
}
