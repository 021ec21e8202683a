/// One measurement: time and heap allocations per step.
struct Sample: Sendable {
    let nanosecondsPerStep: Double
    let allocationsPerStep: Double

    init(nanosecondsPerStep: Double, allocationsPerStep: Double) {
        self.nanosecondsPerStep = nanosecondsPerStep
        self.allocationsPerStep = allocationsPerStep
    }

    init(elapsed: Duration, allocations: UInt64, steps: Int) {
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        nanosecondsPerStep = nanoseconds / Double(steps)
        allocationsPerStep = Double(allocations) / Double(steps)
    }

    /// The median of `samples` by time.
    static func median(_ samples: [Sample]) -> Sample {
        samples.sorted { $0.nanosecondsPerStep < $1.nanosecondsPerStep }[samples.count / 2]
    }
}
