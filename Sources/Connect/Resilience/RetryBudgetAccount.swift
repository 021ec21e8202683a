import ConnectFutures

/// What one ``RetryBudget`` counted in its window: first attempts and retries in fifty slices of
/// the window, the oldest emptied as time moves past it. The window is then 98% to 100% of its
/// length, so that a burst of retries at the start of an outage stays counted for nearly the
/// whole window rather than leaving it a slice early and being paid for again. A plain value, driven with explicit
/// instants, so that its accounting is tested without a clock (`RetryBudgetTests`); the
/// ``RetryBudgetLedger`` keeps one for the client or one per origin.
struct RetryBudgetAccount {
    /// What a refused retry is told: the counts the budget stood at.
    struct Refusal: Equatable, CustomStringConvertible {
        /// First attempts within the window.
        let firstAttempts: Int
        /// Retries within the window, all of them paid for.
        let retries: Int
        /// The retries the window allowed for those first attempts.
        let allowed: Int

        var description: String {
            "\(retries) retries already sent against \(firstAttempts) requests (\(allowed) allowed)"
        }
    }

    static let slices = 50

    private let budget: RetryBudget
    /// Each slice's length.
    private let sliceNanoseconds: Int64
    private var firstAttempts = [Int](repeating: 0, count: slices)
    private var retries = [Int](repeating: 0, count: slices)
    /// The number of the slice `now` was in when last counted, from the clock's start.
    private var newestSlice: Int64

    init(budget: RetryBudget, at now: MonotonicInstant) {
        self.budget = budget
        sliceNanoseconds = max(budget.window.clampedNanoseconds / Int64(Self.slices), 1)
        newestSlice = now.nanoseconds / sliceNanoseconds
    }

    /// Counts a request's first attempt.
    mutating func recordFirstAttempt(at now: MonotonicInstant) {
        let slice = advance(to: now)
        firstAttempts[slice] += 1
    }

    /// Pays for one retry if the window allows it; otherwise the counts that refused it.
    mutating func payForRetry(at now: MonotonicInstant) -> Refusal? {
        let slice = advance(to: now)
        let requests = firstAttempts.reduce(0, +)
        let sent = retries.reduce(0, +)
        let allowed = budget.reserve + budget.share * Double(requests)
        guard Double(sent + 1) <= allowed else {
            return Refusal(firstAttempts: requests, retries: sent, allowed: Int(allowed))
        }
        retries[slice] += 1
        return nil
    }

    /// Whether everything counted has left the window by `now`: the account may be dropped.
    func isEmpty(at now: MonotonicInstant) -> Bool {
        now.nanoseconds / sliceNanoseconds - newestSlice >= Int64(Self.slices)
            || (firstAttempts.allSatisfy { $0 == 0 } && retries.allSatisfy { $0 == 0 })
    }

    /// Moves the window to `now`, emptying the slices it left behind; the index of `now`'s slice.
    private mutating func advance(to now: MonotonicInstant) -> Int {
        let slice = now.nanoseconds / sliceNanoseconds
        if slice > newestSlice {
            let passed = min(slice - newestSlice, Int64(Self.slices))
            for step in 1...passed {
                let index = Self.index(of: newestSlice + step)
                firstAttempts[index] = 0
                retries[index] = 0
            }
            newestSlice = slice
        }
        // A clock read before the newest count (another thread counted in between) counts there.
        return Self.index(of: newestSlice)
    }

    private static func index(of slice: Int64) -> Int {
        Int(slice % Int64(slices))
    }
}
