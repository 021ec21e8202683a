import Testing

@testable import Connect

/// The deadlines of transfers waiting in libcurl's queue for a connection: which are due, which
/// are forgotten, and the nearest the loop sleeps until.
@Suite("Queue deadlines")
struct QueueDeadlinesTests {
    static func at(_ milliseconds: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: milliseconds * 1_000_000)
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        /// Keys and their deadlines (ms), in the order added.
        var added: [(Int, Int64)]
        /// Keys that no longer wait when the loop looks.
        var left: Set<Int> = []
        var now: Int64
        var due: [Int]
        /// The keys kept afterwards, and the nearest deadline among them.
        var kept: [Int]
        var earliest: Int64?
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing waits", added: [], now: 100, due: [], kept: [], earliest: nil),
        Row(
            name: "before the nearest deadline: nothing is touched", added: [(1, 500), (2, 200)], left: [1], now: 199,
            due: [], kept: [1, 2], earliest: 200),
        Row(
            name: "a deadline reached is due", added: [(1, 500), (2, 200)], now: 200, due: [2], kept: [1], earliest: 500
        ),
        Row(
            name: "every deadline passed is due, in order", added: [(3, 100), (1, 300), (2, 50)], now: 400,
            due: [3, 1, 2], kept: [], earliest: nil),
        Row(
            name: "a transfer that left the queue is never due, and is forgotten",
            added: [(1, 100), (2, 100), (3, 900)], left: [1, 3], now: 150, due: [2], kept: [], earliest: nil),
        Row(
            name: "the same transfer noted twice (after a restart) is due once per note", added: [(1, 100), (1, 100)],
            now: 100, due: [1, 1], kept: [], earliest: nil)
    ]

    @Test(arguments: rows)
    func takeDue(_ row: Row) {
        var deadlines = QueueDeadlines<Int>()
        for (key, deadline) in row.added { deadlines.add(key, until: Self.at(deadline)) }
        #expect(deadlines.earliest == row.added.map(\.1).min().map(Self.at))
        let due = deadlines.takeDue(at: Self.at(row.now)) { !row.left.contains($0) }
        #expect(due == row.due)
        #expect(deadlines.entries.map(\.key) == row.kept)
        #expect(deadlines.earliest == row.earliest.map(Self.at))
    }

    @Test func forgettingThoseNotWaitingKeepsTheRestAndTheirNearestDeadline() {
        var deadlines = QueueDeadlines<Int>()
        for (key, deadline) in [(1, 100), (2, 300), (3, 200)] as [(Int, Int64)] {
            deadlines.add(key, until: Self.at(deadline))
        }
        deadlines.forgetThoseNotWaiting { $0 != 1 }
        #expect(deadlines.entries.map(\.key) == [2, 3])
        #expect(deadlines.earliest == Self.at(200))
        #expect(deadlines.count == 2)
    }
}
