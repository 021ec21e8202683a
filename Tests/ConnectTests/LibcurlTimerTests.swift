import Testing

@testable import Connect

/// libcurl's timer as its callback sets it: -1 stops it, 0 is due at once without a look at the
/// clock, anything else is due that many milliseconds after the callback, and a wait lasts until
/// then, rounded up.
@Suite("libcurl's timer")
struct LibcurlTimerTests {
    struct Row: Sendable, CustomStringConvertible {
        /// What libcurl's callback gave.
        var milliseconds: Int
        var timer: LibcurlTimer
        /// Nanoseconds after the callback at which it is asked, with what it answers.
        var asked: [(after: Int64, isDue: Bool, wait: Int?)]

        var description: String { "\(milliseconds) ms" }
    }

    /// When the callback ran.
    static let set = MonotonicInstant(nanoseconds: 5_000_000_000)

    static let rows: [Row] = [
        Row(milliseconds: -1, timer: .stopped, asked: [(0, false, nil), (1_000_000_000, false, nil)]),
        Row(milliseconds: -20, timer: .stopped, asked: [(0, false, nil)]),
        Row(milliseconds: 0, timer: .dueAtOnce, asked: [(-1_000_000, true, 0), (0, true, 0), (7_000_000, true, 0)]),
        Row(
            milliseconds: 1, timer: .due(at: MonotonicInstant(nanoseconds: 5_001_000_000)),
            asked: [(0, false, 2), (999_999, false, 1), (1_000_000, true, 0), (2_000_000, true, 0)]),
        Row(
            milliseconds: 250, timer: .due(at: MonotonicInstant(nanoseconds: 5_250_000_000)),
            asked: [(0, false, 251), (249_500_000, false, 1), (250_000_000, true, 0)]),
        Row(
            milliseconds: .max, timer: .due(at: MonotonicInstant(nanoseconds: .max)),
            asked: [(0, false, (Int(Int64.max) - 5_000_000_000) / 1_000_000 + 1)])
    ]

    @Test("The callback's milliseconds make the timer, and it is due when they have passed", arguments: rows)
    func timerFromTheCallback(_ row: Row) {
        let timer = LibcurlTimer(milliseconds: row.milliseconds, now: Self.set)
        #expect(timer == row.timer)
        for question in row.asked {
            let now = MonotonicInstant(nanoseconds: Self.set.nanoseconds + question.after)
            #expect(timer.isDue(at: now) == question.isDue, "\(question.after) ns after")
            #expect(timer.millisecondsToWait(from: now) == question.wait, "\(question.after) ns after")
        }
    }

    @Test("A timer due at once or stopped never reads the clock")
    func noClockReadWithoutAnInstant() {
        var reads = 0
        func clock() -> MonotonicInstant {
            reads += 1
            return Self.set
        }
        // Asked outside `#expect`, which evaluates a call's arguments itself to show them.
        let atOnce = LibcurlTimer(milliseconds: 0, now: clock())
        let stopped = LibcurlTimer(milliseconds: -1, now: clock())
        let atOnceIsDue = atOnce.isDue(at: clock())
        let stoppedIsDue = stopped.isDue(at: clock())
        #expect(reads == 0)
        #expect(atOnce == .dueAtOnce && atOnceIsDue)
        #expect(stopped == .stopped && !stoppedIsDue)
        let later = LibcurlTimer(milliseconds: 3, now: clock())
        #expect(later == .due(at: MonotonicInstant(nanoseconds: 5_003_000_000)))
        #expect(reads == 1)
    }
}
