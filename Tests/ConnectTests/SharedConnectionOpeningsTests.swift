import Testing

@testable import Connect

/// Which transfer opens a new connection to an origin that multiplexes while the others wait to
/// share it, without a socket: the events of a `GOAWAY` and of a first connection, step by step.
@Suite("Shared connection openings")
struct SharedConnectionOpeningsTests {
    typealias Opening = SharedConnectionOpenings.Opening

    /// Three transfers, told apart by identity only.
    final class Transfer {}
    let first = Transfer(), second = Transfer(), third = Transfer()

    /// One event and what it must give.
    enum Step {
        case multiplexes(String)
        case opening(String, Transfer, mayWait: Bool, Opening)
        case settled(String, Transfer)
        case waits(String, Bool)
    }

    static let origin = "example.com:443"
    static let other = "example.org:443"

    func run(_ steps: [Step]) {
        var openings = SharedConnectionOpenings()
        for (index, step) in steps.enumerated() {
            switch step {
            case .multiplexes(let origin):
                openings.multiplexes(origin)
            case .opening(let origin, let transfer, let mayWait, let expected):
                #expect(
                    openings.opening(origin, by: ObjectIdentifier(transfer), mayWait: mayWait) == expected,
                    "step \(index)")
            case .settled(let origin, let transfer):
                openings.settled(origin, by: ObjectIdentifier(transfer))
            case .waits(let origin, let expected):
                #expect(openings.waits(for: origin) == expected, "step \(index)")
            }
        }
    }

    @Test func anOriginThatHasNotMultiplexedNeverMakesAnyoneWait() {
        #expect(SharedConnectionOpenings().isEmpty)
        run([
            .opening(Self.origin, first, mayWait: true, .proceeds),
            .opening(Self.origin, second, mayWait: true, .proceeds),
            .waits(Self.origin, false)
        ])
    }

    @Test func afterAGoawayTheFirstOpensAndTheOthersWaitUntilItsConnectionIsReady() {
        run([
            .multiplexes(Self.origin),
            .opening(Self.origin, first, mayWait: true, .opens),
            .opening(Self.origin, second, mayWait: true, .waits),
            .opening(Self.origin, third, mayWait: true, .waits),
            .waits(Self.origin, true),
            // Another origin is not held up by it.
            .multiplexes(Self.other),
            .opening(Self.other, second, mayWait: true, .opens),
            // The opener's second address, or its restart: still its own connection.
            .opening(Self.origin, first, mayWait: true, .opens),
            .settled(Self.origin, first),
            .waits(Self.origin, false),
            .waits(Self.other, true)
        ])
    }

    @Test func onlyTheOpenerSettlesItsOrigin() {
        run([
            .multiplexes(Self.origin),
            .opening(Self.origin, first, mayWait: true, .opens),
            .settled(Self.origin, second),
            .waits(Self.origin, true),
            .settled(Self.origin, first),
            .waits(Self.origin, false),
            // The next new connection has a new opener.
            .opening(Self.origin, third, mayWait: true, .opens)
        ])
    }

    @Test func aTransferThatMayNotWaitOpensItsOwn() {
        // libcurl resends it on a connection of its own; the resend check decides about it.
        run([
            .multiplexes(Self.origin),
            .opening(Self.origin, first, mayWait: true, .opens),
            .opening(Self.origin, second, mayWait: false, .proceeds),
            .waits(Self.origin, true)
        ])
    }
}
