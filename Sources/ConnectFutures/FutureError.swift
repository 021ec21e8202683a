/// Errors raised by ConnectFutures itself.
public enum FutureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The promise was released without being completed.
    case promiseAbandoned
    /// `timeout(after:)` elapsed before the future completed.
    case timedOut(after: Duration)
    /// `first(of:)` or `whenAll` was given no futures.
    case noFutures

    public var description: String {
        switch self {
        case .promiseAbandoned:
            return "The promise was released without being completed."
        case .timedOut(let duration):
            return "The operation did not complete within \(duration)."
        case .noFutures:
            return "No futures were given."
        }
    }
}
