import ConnectFutures
import Logging

/// A monitor that logs each request's life to a swift-log `Logger`:
///
/// ```
/// → GET https://api.example.com/todos/1 (attempt 1)
/// ← 503 Service Unavailable for GET https://api.example.com/todos/1 in 12.4 ms, 31 bytes
/// ↻ GET https://api.example.com/todos/1 again in 200 ms after: HTTP 503 Service Unavailable
/// ✗ GET https://api.example.com/todos/1 failed after 3 attempts: HTTP 503 Service Unavailable
/// ⚡ the circuit of https://api.example.com:443 is open for 30s
/// ```
/// Request and response lines log at `level` (`.info` by default); failures and an opened
/// circuit at `.warning` or above. URLs are logged without their query, which often carries keys and tokens, and
/// without a password.
public struct LoggingMonitor: ConnectMonitor {
    /// Where the lines go.
    public let logger: Logger
    /// The level of request, response and retry lines.
    public let level: Logger.Level

    /// Logs to `logger` at `level`.
    public init(logger: Logger = Logger(label: "connect"), level: Logger.Level = .info) {
        self.logger = logger
        self.level = level
    }

    public func requestStarted(_ request: Request, attempt: Int) {
        logger.log(level: level, "→ \(Self.describe(request)) (attempt \(attempt))")
    }

    public func responseReceived(_ response: Response, for request: Request, attempt: Int) {
        let time = (response.metrics.total.milliseconds * 10).rounded() / 10
        logger.log(
            level: level,
            "← \(response.statusCode) \(response.reasonPhrase) for \(Self.describe(request)) in \(time) ms, \(response.body.count) bytes"
        )
    }

    public func retryScheduled(for request: Request, after error: any Error, delay: Duration, attempt: Int) {
        logger.log(level: level, "↻ \(Self.describe(request)) again in \(Int(delay.milliseconds)) ms after: \(error)")
    }

    public func requestFailed(_ request: Request, error: any Error, attempts: Int) {
        logger.log(
            level: max(level, .warning),
            "✗ \(Self.describe(request)) failed after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error)")
    }

    /// An opened circuit logs at `.warning` or above, the probe and the closing at `level`.
    public func circuitChanged(for origin: String, to state: CircuitBreaker.State) {
        let opened = if case .open = state { true } else { false }
        logger.log(level: opened ? max(level, .warning) : level, "⚡ the circuit of \(origin) is \(state)")
    }

    static func describe(_ request: Request) -> String {
        var text = DebugLog.text(of: request.url, redacting: .default)
        if let query = text.utf8.firstIndex(of: UInt8(ascii: "?")) { text = String(text[..<query]) }
        return "\(request.method) \(text)"
    }
}
