import Testing

@testable import Connect

/// The sockets libcurl asks the loop to watch, by descriptor: what each holds after a run of
/// libcurl's wishes, and the count and the list a poll(2) is built from, which a dictionary
/// kept before.
@Suite("Socket interests")
struct SocketInterestsTests {
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        /// libcurl's wishes in order: a descriptor and its events, `nil` to forget it.
        var wishes: [(socket: Int32, events: Int16?)]
        /// What is watched after them, lowest descriptor first.
        var watched: [(socket: Int32, events: Int16)]

        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing asked", wishes: [], watched: []),
        Row(name: "one socket", wishes: [(7, 1)], watched: [(7, 1)]),
        Row(name: "a wish replaces the last", wishes: [(7, 1), (7, 4), (7, 5)], watched: [(7, 5)]),
        Row(name: "no events is still watched", wishes: [(3, 0)], watched: [(3, 0)]),
        Row(name: "forgotten", wishes: [(7, 1), (7, nil)], watched: []),
        Row(name: "forgotten twice", wishes: [(7, 1), (7, nil), (7, nil)], watched: []),
        Row(name: "forgetting one never watched", wishes: [(9, nil), (300, nil)], watched: []),
        Row(
            name: "several, listed by descriptor",
            wishes: [(40, 4), (5, 1), (1_000, 5), (12, 1), (5, nil)],
            watched: [(12, 1), (40, 4), (1_000, 5)]),
        Row(name: "watched again after forgotten", wishes: [(6, 1), (6, nil), (6, 4)], watched: [(6, 4)]),
        Row(name: "descriptor 0", wishes: [(0, 1)], watched: [(0, 1)]),
        Row(name: "a negative descriptor is never watched", wishes: [(-1, 1), (-7, 4)], watched: [])
    ]

    @Test("Each socket holds libcurl's last wish", arguments: rows)
    func eachSocketHoldsTheLastWish(_ row: Row) {
        var interests = SocketInterests()
        var expected: [Int32: Int16] = [:]
        for wish in row.wishes {
            interests[wish.socket] = wish.events
            if wish.socket >= 0 { expected[wish.socket] = wish.events }
        }
        #expect(interests.watched.map(\.socket) == row.watched.map(\.socket))
        #expect(interests.watched.map(\.events) == row.watched.map(\.events))
        #expect(interests.count == row.watched.count)
        for socket: Int32 in [-1, 0, 3, 5, 6, 7, 9, 12, 40, 300, 1_000, 5_000] {
            #expect(interests[socket] == expected[socket], "descriptor \(socket)")
        }
    }
}
