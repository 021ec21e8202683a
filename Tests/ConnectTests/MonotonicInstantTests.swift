import Testing

@testable import Connect

/// The clock an exchange's redirects share their deadline by: arithmetic in nanoseconds that
/// saturates instead of wrapping, and readings that keep pace with `ContinuousClock`.
@Suite("Exchange instants")
struct MonotonicInstantTests {
    @Test(arguments: [
        (Int64(0), Duration.seconds(2), Int64(2_000_000_000)),
        (Int64(5), Duration.milliseconds(1), Int64(1_000_005)),
        (Int64(1_000), Duration.nanoseconds(-400), Int64(600)),
        (Int64(3_000_000_000), Duration.seconds(-1.5), Int64(1_500_000_000)),
        (Int64(1), Duration.seconds(Int64.max), Int64.max),
        (Int64.max - 10, Duration.nanoseconds(11), Int64.max),
        (Int64(-1), Duration.seconds(Int64.min), Int64.min)
    ])
    func aDurationLaterSaturates(start: Int64, duration: Duration, expected: Int64) {
        #expect((MonotonicInstant(nanoseconds: start) + duration).nanoseconds == expected)
    }

    @Test(arguments: [
        (Int64(0), 2, Int64(2_000_000)),
        (Int64(5), 0, Int64(5)),
        (Int64(3_000_000), -1, Int64(2_000_000)),
        (Int64.max - 10, 1, Int64.max),
        (Int64(1), Int.max, Int64.max),
        (Int64(-1), Int.min, Int64.min)
    ])
    func millisecondsLaterSaturate(start: Int64, milliseconds: Int, expected: Int64) {
        let later = MonotonicInstant(nanoseconds: start).advanced(byMilliseconds: milliseconds)
        #expect(later.nanoseconds == expected)
        // The same instant as `Duration`'s arithmetic gives, wherever that does not saturate.
        if milliseconds.magnitude < 1 << 40 {
            #expect(later == MonotonicInstant(nanoseconds: start) + .milliseconds(milliseconds))
        }
    }

    // A poll waits whole milliseconds, rounded up so that it wakes after the deadline.
    @Test(arguments: [
        (Int64(0), Int64(1), 1),
        (Int64(0), Int64(999_999), 1),
        (Int64(0), Int64(1_000_000), 2),
        (Int64(0), Int64(2_500_000), 3),
        (Int64(10), Int64(10), 0),
        (Int64(20), Int64(10), 0),
        (Int64.min, Int64.max, Int.max)
    ])
    func millisecondsToWaitRoundUp(now: Int64, deadline: Int64, expected: Int) {
        #expect(
            MonotonicInstant(nanoseconds: now).millisecondsToWait(until: MonotonicInstant(nanoseconds: deadline))
                == expected)
    }

    @Test(arguments: [
        (Int64(2_000_000_000), Int64(500_000_000), Duration.milliseconds(1_500)),
        (Int64(10), Int64(10), Duration.zero),
        (Int64(10), Int64(25), Duration.nanoseconds(-15))
    ])
    func theTimeBetweenTwoInstants(end: Int64, start: Int64, expected: Duration) {
        #expect(MonotonicInstant(nanoseconds: end) - MonotonicInstant(nanoseconds: start) == expected)
        #expect((MonotonicInstant(nanoseconds: end) < MonotonicInstant(nanoseconds: start)) == (expected < .zero))
    }

    @Test func readingsKeepPaceWithContinuousClock() {
        let clock = ContinuousClock()
        let started = MonotonicInstant.now
        let clockStarted = clock.now
        // Busy, not asleep: the two clocks differ only across a suspension of the machine.
        let until = clockStarted + .milliseconds(20)
        while clock.now < until {}
        let elapsed = MonotonicInstant.now - started
        let clockElapsed = clock.now - clockStarted
        #expect(elapsed >= .milliseconds(20))
        // The same clock as ContinuousClock: the two agree to well within the sleep.
        #expect(abs((elapsed - clockElapsed) / .milliseconds(1)) < 5)
    }
}
