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

extension RetryDecision {
    /// The request is to be sent again, now or later.
    var retries: Bool {
        switch self {
        case .retry, .retryAfter: return true
        case .doNotRetry, .fail: return false
        }
    }
}
