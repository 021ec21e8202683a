import ConnectFutures

/// Sends a second attempt of a slow request before the first has answered, and keeps whichever
/// answers first: the slow tail of an upstream's latency stops being the app's.
///
/// ```swift
/// let connect = Connect(middleware: ConnectMiddleware(hedging: Hedging(delay: .percentile(0.95))))
/// ```
/// When an attempt has not answered after ``delay``, another goes, up to ``maximumAttempts`` at
/// once; the first to answer with an accepted status wins and the others are cancelled at once
/// (their transfers removed from libcurl, their connections closed). An attempt that fails leaves
/// the others running; when every attempt has failed, the last failure goes to the retriers as
/// one failed attempt would.
///
/// Only requests that may be sent twice are hedged: GET and HEAD, and any request with an
/// ``IdempotencyKey`` (every hedge carries the same key), unless it sets
/// ``Request/allowsRetry`` to `false`; and only plain requests, not a download to a file or a
/// streamed response, and not one whose body is a one-time stream. Every hedge is paid for from
/// the client's ``RetryBudget``: when it is spent, no hedge goes and the first attempt runs
/// alone, so hedging never adds more than the budget's share of requests. Monitors and spans see
/// each hedge as an attempt of its own.
public struct Hedging: Sendable, Hashable {
    /// When the next attempt goes.
    public struct Delay: Sendable, Hashable, CustomStringConvertible {
        enum Rule: Hashable {
            case fixed(Duration)
            case percentile(Double, atLeast: Duration, untilMeasured: Duration)
        }

        let rule: Rule

        /// A fixed delay after the last attempt started.
        public static func fixed(_ delay: Duration) -> Delay {
            Delay(rule: .fixed(max(delay, .zero)))
        }

        /// The `quantile` (0.95 for the 95th percentile) of the time the origin's recent attempts
        /// took to answer, at least `atLeast`; `untilMeasured` until twenty answers are known.
        /// With 0.95, about one request in twenty is hedged, so hedging adds about 5% requests.
        public static func percentile(
            _ quantile: Double, atLeast: Duration = .milliseconds(5), untilMeasured: Duration = .milliseconds(100)
        ) -> Delay {
            Delay(
                rule: .percentile(min(max(quantile, 0), 1), atLeast: max(atLeast, .zero), untilMeasured: untilMeasured))
        }

        public var description: String {
            switch rule {
            case .fixed(let delay): return "\(delay.secondsAndMilliseconds)"
            case .percentile(let quantile, _, _): return "p\(Int((quantile * 100).rounded()))"
            }
        }
    }

    /// When the next attempt goes.
    public var delay: Delay
    /// Attempts of one request at once, the first included: 2 hedges each slow request once.
    public var maximumAttempts: Int

    /// Creates a hedging policy; the default hedges a request once, when it has taken longer than
    /// 95% of its origin's recent requests.
    public init(delay: Delay = .percentile(0.95), maximumAttempts: Int = 2) {
        self.delay = delay
        self.maximumAttempts = max(maximumAttempts, 1)
    }

    /// Whether `request` may be hedged: it may be sent twice, and nothing of its own would be.
    func applies(to request: Request, options: TransferOptions?) -> Bool {
        guard maximumAttempts > 1, options == nil, request.body?.isReplayable != false else { return false }
        if let allowsRetry = request.allowsRetry, !allowsRetry { return false }
        return request.method == .get || request.method == .head || request.idempotencyKey != nil
    }
}
