import ConnectFutures

/// A bound on retries across many requests: while an upstream fails, retries must not multiply
/// its load.
///
/// A ``RetryPolicy`` decides about one request; the budget decides for the client as a whole.
/// Every request's first attempt adds to it, every retry takes one from it, and a retry the
/// budget cannot pay for is not sent: the request fails at once with a
/// ``TransportFailure/Kind/retryBudgetExhausted`` failure whose message names the attempt's own
/// error. The budget allows, within the last ``window``, retries up to ``share`` of the first
/// attempts, plus ``minimumPerSecond`` a second so that a client sending few requests can still
/// retry them.
///
/// ```swift
/// let connect = Connect(middleware: ConnectMiddleware(
///     retriers: [RetryPolicy(maximumAttempts: 4)],
///     retryBudget: RetryBudget(share: 0.1, perOrigin: true)))
/// ```
/// ``ConnectMiddleware`` has the default budget unless it is given another or `nil`. Its numbers
/// are Finagle's and close to Envoy's and gRPC's: 20% more requests than the app sends is load a
/// service that was sized with headroom absorbs, while three attempts for every request (what
/// `RetryPolicy`'s default allows each request) would triple the load on a service that is
/// already failing, and keep it failing. Ten a second over a ten-second window lets a quiet
/// client retry a burst of failures the share alone would not cover.
///
/// With ``perOrigin`` each origin (scheme, host and port) has a budget of its own, so that one
/// failing upstream does not spend the retries another needs. The budget belongs to the
/// ``Connect`` it was given to: two clients made with the same middleware count apart.
public struct RetryBudget: Sendable, Hashable {
    /// The retries allowed for every first attempt in the window: 0.2 allows one retry for every
    /// five requests.
    public var share: Double
    /// Retries allowed every second whatever the share: with the window, a reserve of
    /// `minimumPerSecond × window` retries.
    public var minimumPerSecond: Int
    /// How far back first attempts and retries count.
    public var window: Duration
    /// Whether every origin has a budget of its own instead of one for the whole client.
    public var perOrigin: Bool

    /// Creates a budget; the defaults allow retries of 20% of the requests of the last ten
    /// seconds, plus ten a second, for the whole client.
    public init(
        share: Double = 0.2, minimumPerSecond: Int = 10, window: Duration = .seconds(10), perOrigin: Bool = false
    ) {
        self.share = max(share, 0)
        self.minimumPerSecond = max(minimumPerSecond, 0)
        self.window = window > .zero ? window : .seconds(1)
        self.perOrigin = perOrigin
    }

    /// The budget ``ConnectMiddleware`` has unless it is given another: 20% and ten a second,
    /// over ten seconds, for the whole client.
    public static var `default`: RetryBudget { RetryBudget() }

    /// The retries the window's reserve allows, before any share of first attempts.
    var reserve: Double {
        Double(minimumPerSecond) * Double(window.clampedNanoseconds) / 1_000_000_000
    }
}
