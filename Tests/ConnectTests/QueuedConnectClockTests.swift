import Testing

@testable import Connect

/// The connect timeout libcurl is given while a transfer waits in its queue, where libcurl counts
/// the wait toward it: whenever the transfer leaves the queue, it has at least its own connect
/// timeout left, and at most one step more.
@Suite("Queued connect clock")
struct QueuedConnectClockTests {
    static func at(_ milliseconds: Int64) -> MonotonicInstant { QueueDeadlinesTests.at(milliseconds) }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        /// The attempt's connect timeout as set on its handle, in milliseconds.
        var connectTimeout: Int64
        /// When the transfer went to libcurl, and when the loop extends its timeout (ms).
        var added: Int64
        var now: Int64
        /// The timeout libcurl is given, and the step until the next extension (ms).
        var timeout: Int64
        var step: Int64
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "noted as it went to libcurl: its own timeout and a step", connectTimeout: 10_000, added: 1_000,
            now: 1_000, timeout: 11_250, step: 1_250),
        Row(
            name: "after waiting 25 s: the wait, its own timeout and a step", connectTimeout: 10_000, added: 1_000,
            now: 26_000, timeout: 36_250, step: 1_250),
        Row(
            name: "a short connect timeout takes a step of 100 ms", connectTimeout: 300, added: 0, now: 450,
            timeout: 850, step: 100),
        Row(
            name: "libcurl's default of 300 s", connectTimeout: 300_000, added: 0, now: 5_000, timeout: 342_500,
            step: 37_500)
    ]

    /// The clock counts from the timeout libcurl applies: whole milliseconds, at least 1, and a
    /// duration too long to count is libcurl's "never", its default of 300 s.
    @Test(arguments: [
        (Duration.seconds(10), Duration.seconds(10)),
        (.microseconds(1_500), .milliseconds(1)),
        (.zero, .milliseconds(1)),
        (.seconds(Int64.max), .seconds(300))
    ])
    func theConnectTimeoutIsTheOneLibcurlApplies(_ set: Duration, _ applied: Duration) {
        #expect(CurlTransfer.appliedConnectTimeout(set) == applied)
    }

    @Test(arguments: rows)
    func timeout(_ row: Row) {
        let clock = QueuedConnectClock(connectTimeout: .milliseconds(row.connectTimeout), addedAt: Self.at(row.added))
        #expect(clock.timeout(at: Self.at(row.now)) == .milliseconds(row.timeout))
        #expect(clock.step == .milliseconds(row.step))
    }

    /// Extended every step, the time a transfer has left when it leaves the queue, at any moment
    /// of its wait, lies between its own connect timeout and that and one step.
    @Test(arguments: [300, 1_000, 10_000])
    func aTransferLeavingTheQueueHasItsWholeConnectTimeout(_ connectTimeout: Int) {
        let clock = QueuedConnectClock(connectTimeout: .milliseconds(connectTimeout), addedAt: Self.at(0))
        let step = clock.step
        var extendedAt = Self.at(0)
        var given = clock.timeout(at: extendedAt)
        for leaving in stride(from: 0, through: 4 * connectTimeout, by: max(connectTimeout / 37, 1)) {
            let now = Self.at(Int64(leaving))
            while !(now < extendedAt + step) {
                extendedAt = extendedAt + step
                given = clock.timeout(at: extendedAt)
            }
            let left = given - (now - Self.at(0))
            let own = Duration.milliseconds(connectTimeout)
            #expect(left >= own, "leaving at \(leaving) ms")
            #expect(left <= own + step, "leaving at \(leaving) ms")
        }
    }
}
