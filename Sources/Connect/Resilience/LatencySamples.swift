import ConnectFutures

/// The time an origin's recent attempts took to answer, for ``Hedging/Delay/percentile(_:atLeast:untilMeasured:)``:
/// the last 256, in a ring, and the quantile asked for, worked out again every 16 samples rather
/// than sorted for every request.
struct LatencySamples {
    static let capacity = 256
    static let measuredAfter = 20
    private static let recomputeEvery = 16

    private var samples: [Int64] = []
    private var next = 0
    private var sinceComputed = 0
    private var computed: (quantile: Double, nanoseconds: Int64)?

    /// Records one attempt's time to its answer.
    mutating func record(_ duration: Duration) {
        let nanoseconds = duration.clampedNanoseconds
        if samples.count < Self.capacity {
            samples.append(nanoseconds)
        } else {
            samples[next] = nanoseconds
        }
        next = (next + 1) % Self.capacity
        sinceComputed += 1
    }

    /// The `quantile` of the samples, or `nil` until enough are known.
    mutating func value(at quantile: Double) -> Duration? {
        guard samples.count >= Self.measuredAfter else { return nil }
        if let computed, computed.quantile == quantile, sinceComputed < Self.recomputeEvery {
            return .nanoseconds(computed.nanoseconds)
        }
        let sorted = samples.sorted()
        let index = min(Int((Double(sorted.count - 1) * quantile).rounded(.up)), sorted.count - 1)
        computed = (quantile, sorted[index])
        sinceComputed = 0
        return .nanoseconds(sorted[index])
    }
}
