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

    /// Waiting for another's connection is connecting: what the wait leaves of the connect
    /// timeout, and when it leaves nothing (under libcurl's millisecond).
    @Test(arguments: [
        (Duration.zero, Duration.seconds(10), Duration.seconds(10) as Duration?),
        (.seconds(4), .seconds(10), .seconds(6)),
        (.milliseconds(9_999), .seconds(10), .milliseconds(1)),
        (.nanoseconds(9_999_000_001), .seconds(10), nil),
        (.seconds(10), .seconds(10), nil),
        (.seconds(25), .seconds(10), nil),
        (.seconds(30), .seconds(300), .seconds(270))
    ])
    func theWaitCountsTowardTheConnectTimeout(waited: Duration, connectTimeout: Duration, left: Duration?) {
        #expect(SharedConnectionOpenings.connectTimeLeft(waited: waited, connectTimeout: connectTimeout) == left)
    }

    /// A transfer that timed out without a connection waited for an opening while one is in
    /// progress, or failed within its connect timeout before; an opener's failure counts only
    /// from the opener, and a success records none.
    @Test func aTimeoutWaitedForAnOpeningInProgressOrOneThatFailedWithinTheConnectTimeout() {
        var openings = SharedConnectionOpenings()
        let at = { (seconds: Int64) in MonotonicInstant(nanoseconds: seconds * 1_000_000_000) }
        /// Whether `transfer`, timed out at `seconds` with a connect timeout of 10 s, waited.
        func waited(_ transfer: Transfer, to origin: String = Self.origin, at seconds: Int64) -> Bool {
            openings.waitedForOpening(
                to: origin, by: ObjectIdentifier(transfer), within: .seconds(10), before: at(seconds))
        }
        openings.multiplexes(Self.origin)
        #expect(!waited(second, at: 1))
        #expect(openings.opening(Self.origin, by: ObjectIdentifier(first), mayWait: true) == .opens)
        #expect(waited(second, at: 5))
        #expect(!waited(second, to: Self.other, at: 5))
        #expect(!waited(first, at: 5), "the opener waited for no one")
        openings.openingFailed(Self.origin, by: ObjectIdentifier(second), at: at(9))  // not the opener
        #expect(openings.failures.isEmpty)
        openings.openingFailed(Self.origin, by: ObjectIdentifier(first), at: at(10))
        openings.settled(Self.origin, by: ObjectIdentifier(first))
        #expect(waited(second, at: 10))
        #expect(waited(second, at: 20))
        #expect(!waited(second, at: 21))
        // The next opening succeeds: the failure before it still lies within the window.
        #expect(openings.opening(Self.origin, by: ObjectIdentifier(third), mayWait: true) == .opens)
        openings.settled(Self.origin, by: ObjectIdentifier(third))
        #expect(openings.failures[Self.origin] == at(10))
    }

    /// When a transfer began waiting is kept across the restarts that waiting takes, the first
    /// wait's start, until libcurl chooses a connection for it.
    @Test func aTransferWaitsFromItsFirstWaitUntilItHasAConnection() {
        var state = TransferState(method: .get, isRepeatable: true, bodyIsOneTimeStream: false)
        #expect(state.waitingForConnectionSince == nil)
        state.waitsForConnection(to: Self.origin, at: MonotonicInstant(nanoseconds: 100))
        state.startsOver()
        state.waitsForConnection(to: Self.origin, at: MonotonicInstant(nanoseconds: 900))
        #expect(state.waitingForConnectionSince == MonotonicInstant(nanoseconds: 100))
        state.startsOver()
        #expect(state.waitingForConnectionSince == MonotonicInstant(nanoseconds: 100))
        _ = state.connectionChosen(answersChallenge: false)
        #expect(state.waitingForConnectionSince == nil)
        // A later wait (its connection died, and another is opening the next) starts afresh.
        state.startsOver()
        state.waitsForConnection(to: Self.origin, at: MonotonicInstant(nanoseconds: 5_000))
        #expect(state.waitingForConnectionSince == MonotonicInstant(nanoseconds: 5_000))
    }

    /// The end of a wait: what it leaves of the connect timeout is the next attempt's, unless the
    /// transfer keeps an alternative's bound; a wait that used it up times out; the cut lasts
    /// until the transfer starts over.
    @Test func theEndOfAWaitCutsTheNextAttemptsConnectTimeout() {
        let at = { (milliseconds: Int64) in MonotonicInstant(nanoseconds: milliseconds * 1_000_000) }
        var state = TransferState(method: .get, isRepeatable: true, bodyIsOneTimeStream: false)
        /// The end of the wait at `milliseconds`, with a connect timeout of 1 s.
        func ended(at milliseconds: Int64, cuts: Bool = true) -> TransferState.WaitEnd {
            state.connectionWaitEnded(at: at(milliseconds), connectTimeout: .seconds(1), cuts: cuts)
        }
        #expect(ended(at: 5) == .connects(within: nil), "it never waited")
        state.waitsForConnection(to: Self.origin, at: at(100))
        state.startsOver()
        #expect(ended(at: 400, cuts: false) == .connects(within: nil))
        #expect(state.connectTimeoutCut == nil)
        #expect(ended(at: 400) == .connects(within: .milliseconds(700)))
        #expect(state.connectTimeoutCut == .milliseconds(700))
        #expect(ended(at: 1_100) == .timedOut(waited: .seconds(1)))
        state.startsOver()
        #expect(state.connectTimeoutCut == nil)
    }
}
