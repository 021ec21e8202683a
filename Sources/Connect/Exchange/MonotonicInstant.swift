#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// When an exchange or one of its attempts started, for the deadlines its redirects and its
/// preparation share and the times it reports: the clock `ContinuousClock` reads (time asleep
/// included), read through the C library.
///
/// Every request reads it at least once. `ContinuousClock.now` lives in the concurrency runtime, whose code
/// no other part of a request runs: reading it there costs each request several pages of code
/// brought back into the caches, while the C library's `clock_gettime` runs for every request
/// already (libcurl reads its clock many times per transfer).
struct MonotonicInstant: Comparable, Sendable {
    /// Nanoseconds on the clock, from an unspecified start.
    let nanoseconds: Int64

    static var now: MonotonicInstant {
        var time = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_MONOTONIC_RAW, &time)
        #else
        clock_gettime(CLOCK_BOOTTIME, &time)
        #endif
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// `duration` later; the far future for a duration too long to count in nanoseconds.
    static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, overflowAgain) = instant.nanoseconds.addingReportingOverflow(whole &+ attoseconds / 1_000_000_000)
        guard !overflow, !overflowAgain else { return MonotonicInstant(nanoseconds: seconds < 0 ? .min : .max) }
        return MonotonicInstant(nanoseconds: sum)
    }

    /// `milliseconds` later, saturating as `+` does: libcurl's timer and the loop's waits count
    /// in milliseconds, and the loop reads them on every pass, where `Duration`'s arithmetic is
    /// in 128 bits.
    func advanced(byMilliseconds milliseconds: Int) -> MonotonicInstant {
        let (delta, overflow) = Int64(milliseconds).multipliedReportingOverflow(by: 1_000_000)
        let (sum, overflowAgain) = nanoseconds.addingReportingOverflow(delta)
        guard !overflow, !overflowAgain else { return MonotonicInstant(nanoseconds: milliseconds < 0 ? .min : .max) }
        return MonotonicInstant(nanoseconds: sum)
    }

    /// The time from `start` to `end`.
    static func - (end: MonotonicInstant, start: MonotonicInstant) -> Duration {
        .nanoseconds(end.nanoseconds &- start.nanoseconds)
    }

    static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The whole milliseconds a poll waits from here for `deadline` to pass, rounded up so that
    /// it wakes after the deadline rather than just before it; 0 once it has passed.
    func millisecondsToWait(until deadline: MonotonicInstant) -> Int {
        guard self < deadline else { return 0 }
        let (span, overflow) = deadline.nanoseconds.subtractingReportingOverflow(nanoseconds)
        return overflow ? .max : Int(span / 1_000_000) + 1
    }
}
