/// Whether a drain's thread continues the next awaiting task itself (``CompletionDrain``): the
/// first always, the others while less than the budget has passed since the first began; once
/// it is spent, every task left goes to Swift's pool.
struct ContinuationBudget {
    private let nanoseconds: Int64
    private var firstBegan: MonotonicInstant?
    private var isSpent = false

    init(_ budget: Duration) {
        let (seconds, attoseconds) = budget.components
        nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whether the next task runs here, `now` being the time it would begin (not read once the
    /// budget is spent).
    mutating func runsNext(now: @autoclosure () -> MonotonicInstant) -> Bool {
        if isSpent { return false }
        guard let firstBegan else {
            firstBegan = now()
            return true
        }
        isSpent = now().nanoseconds - firstBegan.nanoseconds >= nanoseconds
        return !isSpent
    }
}
