import CCurl
import Foundation
import Testing

@testable import Connect

/// When a request goes out again below the retrier, without a socket: which requests may be
/// repeated, which of libcurl's resends are refused, when a transfer ended by a framing error
/// starts over, and which easy handles keep their setup. The wire behaviour is tested in
/// `HTTPVersionTests.requestsOnConnectionsTheServerEnds` and `WireTests`.
@Suite("Resend decisions")
struct ResendDecisionTests {
    struct RepeatCase: Sendable, CustomStringConvertible {
        var method: HTTPMethod
        var allowsRetry: Bool?
        var hasIdempotencyKey = false
        var expected: Bool
        var description: String {
            let key = hasIdempotencyKey ? ", idempotency key" : ""
            return "\(method.rawValue)\(key), allowsRetry \(allowsRetry.map(String.init) ?? "unset") → \(expected)"
        }
    }

    @Test(arguments: [
        // Unset, the method decides.
        RepeatCase(method: .get, allowsRetry: nil, expected: true),
        RepeatCase(method: .head, allowsRetry: nil, expected: true),
        RepeatCase(method: .put, allowsRetry: nil, expected: true),
        RepeatCase(method: .delete, allowsRetry: nil, expected: true),
        RepeatCase(method: .post, allowsRetry: nil, expected: false),
        RepeatCase(method: .patch, allowsRetry: nil, expected: false),
        // A POST may say itself that it may be repeated.
        RepeatCase(method: .post, allowsRetry: true, expected: true),
        RepeatCase(method: .patch, allowsRetry: true, expected: true),
        // A POST or PATCH with an idempotency key may be repeated unless it says otherwise.
        RepeatCase(method: .post, allowsRetry: nil, hasIdempotencyKey: true, expected: true),
        RepeatCase(method: .patch, allowsRetry: nil, hasIdempotencyKey: true, expected: true),
        RepeatCase(method: .post, allowsRetry: false, hasIdempotencyKey: true, expected: false),
        // A request may forbid it even where its method would allow it.
        RepeatCase(method: .get, allowsRetry: false, expected: false),
        RepeatCase(method: .put, allowsRetry: false, expected: false)
    ])
    func mayRepeat(_ row: RepeatCase) {
        #expect(
            ResendDecision.mayRepeat(
                methodIsIdempotent: row.method.isIdempotent, hasIdempotencyKey: row.hasIdempotencyKey,
                allowsRetry: row.allowsRetry) == row.expected)
        // The request answers the same from its own fields.
        var request = Request(method: row.method, url: URL(string: "http://127.0.0.1/")!, allowsRetry: row.allowsRetry)
        if row.hasIdempotencyKey { request.idempotencyKey = IdempotencyKey("k-1") }
        #expect(request.mayBeRepeated == row.expected)
    }

    struct ResendCase: Sendable, CustomStringConvertible {
        var connectionsChosen: Int
        var isRepeatable: Bool
        var answersChallenge = false
        var refused: Bool
        var description: String {
            "connection \(connectionsChosen), repeatable \(isRepeatable), challenge \(answersChallenge) → refused \(refused)"
        }
    }

    @Test(arguments: [
        // The first connection is never a resend.
        ResendCase(connectionsChosen: 1, isRepeatable: false, refused: false),
        ResendCase(connectionsChosen: 1, isRepeatable: true, refused: false),
        // libcurl sending again: only a request that may be repeated goes.
        ResendCase(connectionsChosen: 2, isRepeatable: false, refused: true),
        ResendCase(connectionsChosen: 2, isRepeatable: true, refused: false),
        ResendCase(connectionsChosen: 6, isRepeatable: false, refused: true),
        ResendCase(connectionsChosen: 6, isRepeatable: true, refused: false),
        // Answering an authentication challenge (NTLM takes two): the server refused the last.
        ResendCase(connectionsChosen: 2, isRepeatable: false, answersChallenge: true, refused: false),
        ResendCase(connectionsChosen: 3, isRepeatable: false, answersChallenge: true, refused: false)
    ])
    func refusesResend(_ row: ResendCase) {
        #expect(
            ResendDecision.refusesResend(
                connectionsChosen: row.connectionsChosen, isRepeatable: row.isRepeatable,
                answersChallenge: row.answersChallenge) == row.refused)
    }

    struct FramingCase: Sendable, CustomStringConvertible {
        var responseStarted: Bool
        var isRepeatable: Bool
        var restartsSoFar: Int
        var startsOver: Bool
        var description: String {
            "response started \(responseStarted), repeatable \(isRepeatable), \(restartsSoFar) restarts → \(startsOver)"
        }
    }

    @Test(arguments: [
        // A refused stream of a repeatable request: nothing arrived, it starts over.
        FramingCase(responseStarted: false, isRepeatable: true, restartsSoFar: 0, startsOver: true),
        FramingCase(responseStarted: false, isRepeatable: true, restartsSoFar: 2, startsOver: true),
        // A few times at most: a server that refuses every stream ends it.
        FramingCase(responseStarted: false, isRepeatable: true, restartsSoFar: 3, startsOver: false),
        FramingCase(responseStarted: false, isRepeatable: true, restartsSoFar: 9, startsOver: false),
        // A request that may not be repeated: the same error also covers a response head that
        // nghttp2 refused after the server processed the request.
        FramingCase(responseStarted: false, isRepeatable: false, restartsSoFar: 0, startsOver: false),
        // Part of the response arrived: the server processed it.
        FramingCase(responseStarted: true, isRepeatable: true, restartsSoFar: 0, startsOver: false),
        FramingCase(responseStarted: true, isRepeatable: false, restartsSoFar: 0, startsOver: false)
    ])
    func startsOverAfterFramingError(_ row: FramingCase) {
        let startsOver = ResendDecision.startsOverAfterFramingError(
            responseStarted: row.responseStarted, isRepeatable: row.isRepeatable, restartsSoFar: row.restartsSoFar)
        #expect(startsOver == row.startsOver)
    }

    struct DeadConnectionCase: Sendable, CustomStringConvertible {
        var reused: Bool
        var responseStarted = false
        var isRepeatable = true
        var restartsSoFar = 0
        var startsOver: Bool
        var description: String {
            "reused \(reused), response started \(responseStarted), repeatable \(isRepeatable), \(restartsSoFar) restarts → \(startsOver)"
        }
    }

    @Test(arguments: [
        // A reused connection that died before any answer: an idle close raced the request.
        DeadConnectionCase(reused: true, startsOver: true),
        // Again on another reused connection that died the same way, a few times at most.
        DeadConnectionCase(reused: true, restartsSoFar: 1, startsOver: true),
        DeadConnectionCase(reused: true, restartsSoFar: 2, startsOver: true),
        DeadConnectionCase(reused: true, restartsSoFar: 3, startsOver: false),
        // A connection opened for the request that dies is the server's answer.
        DeadConnectionCase(reused: false, startsOver: false),
        // Part of the answer came: the server read the request.
        DeadConnectionCase(reused: true, responseStarted: true, startsOver: false),
        // A request that may not be repeated fails, and the retrier decides.
        DeadConnectionCase(reused: true, isRepeatable: false, startsOver: false)
    ])
    func startsOverOnDeadConnection(_ row: DeadConnectionCase) {
        let startsOver = ResendDecision.startsOverOnDeadConnection(
            connectionWasReused: row.reused, responseStarted: row.responseStarted, isRepeatable: row.isRepeatable,
            restartsSoFar: row.restartsSoFar)
        #expect(startsOver == row.startsOver)
    }

    @Test func theCodesOfADeadConnection() {
        for code in [CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING] {
            #expect(ResendDecision.endsWithDeadConnection(code), "\(code)")
        }
        for code in [
            CURLE_OK, CURLE_OPERATION_TIMEDOUT, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_WRITE_ERROR,
            CURLE_COULDNT_CONNECT, CURLE_PEER_FAILED_VERIFICATION
        ] {
            #expect(!ResendDecision.endsWithDeadConnection(code), "\(code)")
        }
    }

    @Test(arguments: [
        // The HTTP/2 connection died or went away (a GOAWAY, a refused stream): its streams
        // share whatever connection libcurl keeps or opens next.
        (ResendDecision.RestartCause.connectionEnded(multiplexed: true), ResendDecision.RestartConnection.anyLive),
        // An HTTP/1 connection died: the others to the server may be as old, so a new one.
        (.connectionEnded(multiplexed: false), .new),
        // The transport refused the connection libcurl chose: libcurl would choose it again.
        (.connectionRefused, .new),
        // It waited for another transfer's new connection: it shares it.
        (.waitedForSharedConnection, .anyLive),
        // Its advertised alternative failed: a live connection to the origin serves.
        (.alternativeFailed, .anyLive),
        // It timed out waiting in libcurl's queue: it waits for whichever connection frees.
        (.timedOutInQueue, .anyLive)
    ])
    func restartConnection(after cause: ResendDecision.RestartCause, _ connection: ResendDecision.RestartConnection) {
        #expect(ResendDecision.restartConnection(after: cause) == connection)
    }

    @Test(arguments: [
        // Before any connection: the alternative could not be reached, resolved, or shaken
        // hands with, or its certificate was refused.
        (CURLE_COULDNT_CONNECT, 0, true), (CURLE_OPERATION_TIMEDOUT, 0, true), (CURLE_QUIC_CONNECT_ERROR, 0, true),
        (CURLE_COULDNT_RESOLVE_HOST, 0, true), (CURLE_PEER_FAILED_VERIFICATION, 0, true),
        (CURLE_SSL_CONNECT_ERROR, 0, true), (CURLE_RECV_ERROR, 0, true), (CURLE_HTTP3, 0, true),
        // Cancelled, or another failure: it settles.
        (CURLE_ABORTED_BY_CALLBACK, 0, false), (CURLE_WRITE_ERROR, 0, false), (CURLE_OK, 0, false),
        // Once a connection was chosen, the request may have gone out: never again from here.
        (CURLE_RECV_ERROR, 1, false), (CURLE_OPERATION_TIMEDOUT, 1, false), (CURLE_HTTP3, 1, false)
    ])
    func fallsBackFromAlternative(code: CURLcode, connectionsChosen: Int, fallsBack: Bool) {
        #expect(ResendDecision.fallsBackFromAlternative(code, connectionsChosen: connectionsChosen) == fallsBack)
    }

    struct QueueCase: Sendable, CustomStringConvertible {
        var code: CURLcode = CURLE_OPERATION_TIMEDOUT
        /// How long it had been connecting, `nil` for not at all.
        var connecting: Duration?
        var connectionChosen = false
        var connectTimeout: Duration = .seconds(10)
        var timeLeft: Duration = .seconds(50)
        var waitedForOpening = false
        var startsOver: Bool
        var description: String {
            "code \(code.rawValue), connecting \(connecting.map { "\($0)" } ?? "never"), chosen \(connectionChosen), "
                + "connect timeout \(connectTimeout), \(timeLeft) left, waited for an opening \(waitedForOpening) "
                + "→ \(startsOver)"
        }
    }

    @Test(arguments: [
        // Timed out in the queue with time left: back into the queue.
        QueueCase(startsOver: true),
        QueueCase(timeLeft: .milliseconds(1), startsOver: true),
        // Its own timeout is spent: the wait counts against it, and it fails.
        QueueCase(timeLeft: .zero, startsOver: false),
        QueueCase(timeLeft: .microseconds(999), startsOver: false),
        QueueCase(timeLeft: .seconds(-2), startsOver: false),
        // It left the queue late and began connecting: libcurl 8 ended it by the time it waited,
        // and it starts over while the wait was the larger part of the connect timeout.
        QueueCase(connecting: .zero, startsOver: true),
        QueueCase(connecting: .milliseconds(6), startsOver: true),
        QueueCase(connecting: .milliseconds(4_999), startsOver: true),
        QueueCase(connecting: .milliseconds(6), timeLeft: .microseconds(999), startsOver: false),
        // It connected for half the connect timeout or more: a connect that failed.
        QueueCase(connecting: .seconds(5), startsOver: false),
        QueueCase(connecting: .milliseconds(9_990), startsOver: false),
        QueueCase(connecting: .seconds(10), startsOver: false),
        QueueCase(connecting: .milliseconds(600), connectTimeout: .seconds(1), startsOver: false),
        QueueCase(connecting: .milliseconds(400), connectTimeout: .seconds(1), startsOver: true),
        // A connection was chosen for it: the request may have gone out.
        QueueCase(connecting: .milliseconds(2), connectionChosen: true, startsOver: false),
        QueueCase(connectionChosen: true, startsOver: false),
        // It waited for a connection another transfer was opening (libcurl 8's own wait): that
        // was connecting, and it fails with the connect timeout.
        QueueCase(waitedForOpening: true, startsOver: false),
        QueueCase(connecting: .milliseconds(6), waitedForOpening: true, startsOver: false),
        // Any other ending.
        QueueCase(code: CURLE_COULDNT_CONNECT, startsOver: false),
        QueueCase(code: CURLE_COULDNT_CONNECT, connecting: .milliseconds(2), startsOver: false),
        QueueCase(code: CURLE_ABORTED_BY_CALLBACK, startsOver: false),
        QueueCase(code: CURLE_OK, startsOver: false)
    ])
    func startsOverAfterWaitingInQueue(_ row: QueueCase) {
        #expect(
            ResendDecision.startsOverAfterWaitingInQueue(
                row.code, connectingLasted: row.connecting, connectionChosen: row.connectionChosen,
                connectTimeout: row.connectTimeout, timeLeft: row.timeLeft, waitedForOpening: row.waitedForOpening)
                == row.startsOver)
    }

    @Test(arguments: [
        // Nothing sent yet: it waits, whatever its method.
        (0, false, true), (0, true, true),
        // libcurl is resending it: only a request that may be repeated.
        (1, true, true), (1, false, false), (3, false, false)
    ])
    func mayWaitForSharedConnection(connectionsChosen: Int, isRepeatable: Bool, mayWait: Bool) {
        #expect(
            ResendDecision.mayWaitForSharedConnection(connectionsChosen: connectionsChosen, isRepeatable: isRepeatable)
                == mayWait)
    }

    struct SetupCase: Sendable, CustomStringConvertible {
        var succeeded: Bool
        var connectionsChosen: Int
        var keeps: Bool
        var description: String { "succeeded \(succeeded), \(connectionsChosen) connections → keeps \(keeps)" }
    }

    @Test(arguments: [
        SetupCase(succeeded: true, connectionsChosen: 1, keeps: true),
        // libcurl sent the request again: its resend count stays on the handle until a reset.
        SetupCase(succeeded: true, connectionsChosen: 2, keeps: false),
        SetupCase(succeeded: false, connectionsChosen: 1, keeps: false),
        SetupCase(succeeded: false, connectionsChosen: 2, keeps: false),
        // Failed before any connection was chosen (a name that does not resolve, a refused
        // connect).
        SetupCase(succeeded: false, connectionsChosen: 0, keeps: false)
    ])
    func keepsHandleSetup(_ row: SetupCase) {
        #expect(
            ResendDecision.keepsHandleSetup(transferSucceeded: row.succeeded, connectionsChosen: row.connectionsChosen)
                == row.keeps)
    }
}
