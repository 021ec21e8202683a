internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ready retrier: exponential backoff with jitter for transient failures.
///
/// ```swift
/// let connect = Connect(middleware: ConnectMiddleware(retrier: RetryPolicy(maximumAttempts: 4)))
/// ```
/// What it retries:
/// - statuses in ``retryableStatusCodes`` (408, 429, 500, 502, 503, 504) and timeouts and
///   transport failures, for idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS, TRACE),
///   requests with an ``IdempotencyKey``, and requests opted in with ``Request/allowsRetry`` (or
///   ``retriesNonIdempotentRequests``);
/// - for every request, a transport failure that happened before any byte was sent (the server
///   never saw it, so repeating it is safe);
/// - never a cancelled request, a request that could not be built, a TLS failure, or a request
///   refused by an open ``CircuitBreaker``.
///
/// The n-th retry waits `baseDelay × 2ⁿ⁻¹`, at most ``maximumDelay``, less up to ``jitter`` of
/// it at random (so clients that failed together do not retry together). A `Retry-After`
/// header on 429 or 503 (seconds or an HTTP date) is obeyed instead, as long as it is within
/// ``maximumDelay``: a server that asks for a longer wait gets no retry (the request fails with
/// its response, `Retry-After` included), since retrying sooner than it asked would only be
/// refused again. No retry starts once ``deadline`` has passed since the first attempt, or would
/// start after it.
///
/// ``maximumAttempts`` counts attempts, the first included: 3 means at most 2 retries
/// (Alamofire's `retryLimit` counts retries; here that is ``maximumRetries``).
public struct RetryPolicy: RequestRetrier {
    /// Attempts in all, the first included: 3 is one attempt and at most 2 retries.
    public var maximumAttempts: Int
    /// Retries after the first attempt: ``maximumAttempts`` less one.
    public var maximumRetries: Int {
        get { max(maximumAttempts - 1, 0) }
        set { maximumAttempts = max(newValue, 0) + 1 }
    }
    /// The wait before the first retry.
    public var baseDelay: Duration
    /// The longest wait between two attempts from backoff.
    public var maximumDelay: Duration
    /// No retry starts later than this after the first attempt; `nil` for no limit.
    public var deadline: Duration?
    /// The share of each wait taken off at random, from 0 (none) to 1.
    public var jitter: Double
    /// Statuses worth another try.
    public var retryableStatusCodes: Set<Int>
    /// Retry POST and PATCH like idempotent requests.
    public var retriesNonIdempotentRequests: Bool

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(10),
        deadline: Duration? = .seconds(60),
        jitter: Double = 0.5,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retriesNonIdempotentRequests: Bool = false
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.deadline = deadline
        self.jitter = min(max(jitter, 0), 1)
        self.retryableStatusCodes = retryableStatusCodes
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
    }

    public func retry(_ attempt: FailedAttempt) async -> RetryDecision {
        guard attempt.number < maximumAttempts, isWorthRetrying(attempt) else { return .doNotRetry }
        let requested = serverRequestedDelay(attempt.response)
        if let requested, requested > maximumDelay { return .doNotRetry }
        let delay = requested ?? backoff(afterAttempt: attempt.number)
        if let deadline, attempt.elapsed + delay > deadline { return .doNotRetry }
        return delay <= .zero ? .retry : .retryAfter(delay)
    }

    /// Whether the failure is transient and repeating the request is safe.
    public func isWorthRetrying(_ attempt: FailedAttempt) -> Bool {
        let request = attempt.request
        let repeatable = request.mayBeRepeated || (request.allowsRetry == nil && retriesNonIdempotentRequests)
        if let status = attempt.response?.statusCode {
            return repeatable && retryableStatusCodes.contains(status)
        }
        switch attempt.error as? ConnectError {
        case .transport(let failure)? where failure.kind == .circuitOpen:
            // Refused by the client itself until the probe: another attempt now is refused again.
            return false
        case .transport(let failure)?:
            return repeatable || !failure.requestSent
        case .timedOut?:
            return repeatable
        default:
            return false
        }
    }

    /// The backoff before the retry that follows attempt `number`, jitter included.
    public func backoff(afterAttempt number: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return backoff(afterAttempt: number, using: &generator)
    }

    /// The backoff before the retry that follows attempt `number`, with a given source of
    /// randomness: the tests' fixed one.
    func backoff(afterAttempt number: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(max(number - 1, 0), 30)
        let uncapped = baseDelay * (1 << exponent)
        let capped = min(uncapped, maximumDelay)
        guard jitter > 0 else { return capped }
        let keep = 1 - jitter * Double.random(in: 0...1, using: &generator)
        return capped * keep
    }

    /// The wait a 429 or 503 asks for in `Retry-After`, as seconds or an HTTP date.
    public func serverRequestedDelay(_ response: Response?) -> Duration? {
        guard let response, response.statusCode == 429 || response.statusCode == 503,
            let value = response.header("Retry-After").map({ String($0.trimmingHTTPSpaces) })
        else { return nil }
        if let seconds = Int(value) { return .seconds(max(seconds, 0)) }
        guard let date = HTTPDate.date(from: value) else { return nil }
        let seconds = date.timeIntervalSinceNow
        return seconds > 0 ? .milliseconds(Int(seconds * 1000)) : .zero
    }
}
