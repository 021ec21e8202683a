import Foundation
import Testing

@testable import Connect

/// The retry decision without a socket: which failures a `RetryPolicy` retries, and after how long.
@Suite("Retry decisions")
struct RetryDecisionTests {
    static let policy = RetryPolicy(
        maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(1), deadline: .seconds(10), jitter: 0)

    enum Failure: Sendable, CustomStringConvertible {
        case status(Int, retryAfter: String? = nil)
        case transport(TransportFailure.Kind, sent: Bool)
        case timedOut, cancelled, invalid, tls

        var description: String {
            switch self {
            case .status(let code, let retryAfter):
                return "HTTP \(code)" + (retryAfter.map { " Retry-After: \($0)" } ?? "")
            case .transport(let kind, let sent): return "\(kind) \(sent ? "after" : "before") sending"
            case .timedOut: return "timed out"
            case .cancelled: return "cancelled"
            case .invalid: return "invalid request"
            case .tls: return "TLS"
            }
        }
    }

    static func attempt(
        _ failure: Failure, method: HTTPMethod, number: Int = 1, elapsed: Duration = .zero, allowsRetry: Bool? = nil
    ) -> FailedAttempt {
        let request = Request(method: method, url: URL(string: "https://api.example.com/x")!, allowsRetry: allowsRetry)
        switch failure {
        case .status(let code, let retryAfter):
            let response = Response(
                statusCode: code, headers: retryAfter.map { [HTTPHeader(name: "Retry-After", value: $0)] } ?? [],
                url: request.url)
            return FailedAttempt(
                request: request, error: ConnectError.http(HTTPFailure(message: nil, response: response)),
                response: response, number: number, elapsed: elapsed)
        case .transport(let kind, let sent):
            return FailedAttempt(
                request: request,
                error: ConnectError.transport(TransportFailure(kind: kind, message: "", requestSent: sent)),
                response: nil, number: number, elapsed: elapsed)
        case .timedOut:
            return FailedAttempt(
                request: request, error: ConnectError.timedOut(""), response: nil, number: number, elapsed: elapsed)
        case .cancelled:
            return FailedAttempt(
                request: request, error: ConnectError.cancelled, response: nil, number: number, elapsed: elapsed)
        case .invalid:
            return FailedAttempt(
                request: request, error: ConnectError.invalidRequest(""), response: nil, number: number,
                elapsed: elapsed)
        case .tls:
            return FailedAttempt(
                request: request, error: ConnectError.tls(code: 60, message: ""), response: nil, number: number,
                elapsed: elapsed)
        }
    }

    @Test(arguments: [
        (Failure.status(503), HTTPMethod.get, true), (.status(503), .post, false), (.status(500), .put, true),
        (.status(429), .delete, true), (.status(404), .get, false), (.status(401), .get, false),
        (.status(400), .get, false),
        (.transport(.connectionReset, sent: true), .get, true),
        (.transport(.connectionReset, sent: true), .post, false),
        (.transport(.connectionRefused, sent: false), .post, true),  // never reached the server
        (.transport(.malformedResponse, sent: true), .get, true),
        (.transport(.malformedResponse, sent: true), .patch, false),
        (.transport(.truncatedResponse, sent: true), .head, true), (.timedOut, .get, true), (.timedOut, .post, false),
        (.cancelled, .get, false), (.invalid, .get, false), (.tls, .get, false)
    ])
    func whatIsRetried(failure: Failure, method: HTTPMethod, retried: Bool) {
        #expect(Self.policy.isWorthRetrying(Self.attempt(failure, method: method)) == retried)
    }

    @Test func aRequestThatAllowsRetriesIsRetriedWhateverItsMethod() {
        #expect(Self.policy.isWorthRetrying(Self.attempt(.status(503), method: .post, allowsRetry: true)))
        #expect(!Self.policy.isWorthRetrying(Self.attempt(.status(503), method: .get, allowsRetry: false)))
    }

    /// The decision's wait, or `nil` for no retry.
    static func delay(_ decision: RetryDecision) -> Duration? {
        switch decision {
        case .retry: return .zero
        case .retryAfter(let delay): return delay
        case .doNotRetry, .fail: return nil
        }
    }

    @Test(arguments: [
        (Failure.status(503), 1, Duration.zero, Duration?.some(.milliseconds(100))),
        (.status(503), 2, .zero, .milliseconds(200)),
        (.status(503), 3, .zero, nil),  // the third attempt was the last
        (.status(503, retryAfter: "0"), 1, .zero, .zero),
        (.status(503, retryAfter: "1"), 1, .zero, .seconds(1)),
        (.status(503, retryAfter: "2"), 1, .zero, nil),  // longer than maximumDelay
        (.status(429, retryAfter: "soon"), 1, .zero, .milliseconds(100)),  // unreadable: backoff
        (.status(500, retryAfter: "1"), 1, .zero, .milliseconds(100)),  // only on 429 and 503
        (.status(503), 1, .milliseconds(9_950), nil)  // would start after the deadline
    ])
    func howLongItWaits(failure: Failure, number: Int, elapsed: Duration, wait: Duration?) async {
        let decision = await Self.policy.retry(Self.attempt(failure, method: .get, number: number, elapsed: elapsed))
        #expect(Self.delay(decision) == wait)
    }

    @Test func backoffDoublesUpToTheMaximum() {
        let policy = RetryPolicy(
            maximumAttempts: 10, baseDelay: .milliseconds(100), maximumDelay: .milliseconds(500), jitter: 0)
        #expect(
            (1...5).map { policy.backoff(afterAttempt: $0) } == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)
            ])
        let jittered = RetryPolicy(baseDelay: .milliseconds(100), jitter: 0.5)
        for _ in 0..<50 {
            let wait = jittered.backoff(afterAttempt: 1)
            #expect(wait >= .milliseconds(50) && wait <= .milliseconds(100))
        }
    }
}
