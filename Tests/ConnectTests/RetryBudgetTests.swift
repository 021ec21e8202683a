import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// The retry budget: its accounting as a plain value driven by explicit instants (a table of
/// first attempts and retries over time), the ledger's accounts per client and per origin, and
/// against a real server that always fails, the retries that reach it with and without a budget.
@Suite("Retry budget")
struct RetryBudgetTests {
    enum Step: Sendable, CustomStringConvertible {
        /// A request's first attempt, at a millisecond.
        case first(Int64, count: Int = 1)
        /// A retry at a millisecond, and whether the budget pays for it.
        case retry(Int64, paid: Bool)

        var description: String {
            switch self {
            case .first(let at, let count): return "\(count) first at \(at) ms"
            case .retry(let at, let paid): return "retry at \(at) ms \(paid ? "paid" : "refused")"
            }
        }
    }

    struct AccountCase: Sendable, CustomStringConvertible {
        let name: String
        let budget: RetryBudget
        let steps: [Step]
        var description: String { name }
    }

    /// 10 s windows in slices of 200 ms; times start at 1,000 s so that no slice number is negative.
    static let accountCases: [AccountCase] = [
        AccountCase(
            name: "a share of first attempts, no reserve",
            budget: RetryBudget(share: 0.2, minimumPerSecond: 0),
            steps: [.first(0, count: 10), .retry(100, paid: true), .retry(200, paid: true), .retry(300, paid: false)]),
        AccountCase(
            name: "the reserve alone: ten a second over ten seconds",
            budget: RetryBudget(share: 0, minimumPerSecond: 1),
            steps: Array(repeating: Step.retry(0, paid: true), count: 10) + [.retry(0, paid: false)]),
        AccountCase(
            name: "reserve and share add up",
            budget: RetryBudget(share: 0.5, minimumPerSecond: 1),
            steps: [.first(0, count: 4)] + Array(repeating: Step.retry(0, paid: true), count: 12)
                + [.retry(0, paid: false)]),
        AccountCase(
            name: "first attempts leave the window",
            budget: RetryBudget(share: 0.5, minimumPerSecond: 0),
            steps: [
                .first(0, count: 4), .retry(0, paid: true), .retry(0, paid: true), .retry(0, paid: false),
                // 10.5 s on, the first attempts and the retries have left: nothing to pay with.
                .retry(10_500, paid: false),
                .first(10_600, count: 2), .retry(10_700, paid: true), .retry(10_800, paid: false)
            ]),
        AccountCase(
            name: "retries leave the window too",
            budget: RetryBudget(share: 0.5, minimumPerSecond: 0),
            steps: [
                .first(0, count: 2), .retry(0, paid: true),
                .first(5_000, count: 2), .retry(5_000, paid: true), .retry(5_000, paid: false),
                // The slice of second 0 has left: 2 first attempts and 1 retry remain, from second 5.
                .retry(10_500, paid: false),
                .first(10_600, count: 2), .retry(10_600, paid: true),
                // Second 5 has left as well: the 2 of 10.6 s and their one retry.
                .retry(15_500, paid: false)
            ]),
        AccountCase(
            name: "a clock read late counts in the newest slice",
            budget: RetryBudget(share: 1, minimumPerSecond: 0),
            steps: [
                .first(3_000), .first(2_000), .retry(2_500, paid: true), .retry(2_500, paid: true),
                .retry(3_000, paid: false)
            ]),
        AccountCase(
            name: "no share and no reserve pays for nothing",
            budget: RetryBudget(share: 0, minimumPerSecond: 0),
            steps: [.first(0, count: 100), .retry(0, paid: false)])
    ]

    @Test(arguments: accountCases)
    func accounting(_ row: AccountCase) {
        func instant(_ milliseconds: Int64) -> MonotonicInstant {
            MonotonicInstant(nanoseconds: (1_000_000 + milliseconds) * 1_000_000)
        }
        var account = RetryBudgetAccount(budget: row.budget, at: instant(0))
        for (index, step) in row.steps.enumerated() {
            switch step {
            case .first(let at, let count):
                for _ in 0..<count { account.recordFirstAttempt(at: instant(at)) }
            case .retry(let at, let paid):
                let refusal = account.payForRetry(at: instant(at))
                #expect((refusal == nil) == paid, "step \(index): \(step), refused with \(String(describing: refusal))")
            }
        }
    }

    @Test func aRefusalSaysWhatTheBudgetStoodAt() {
        let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        var account = RetryBudgetAccount(budget: RetryBudget(share: 0.2, minimumPerSecond: 0), at: start)
        for _ in 0..<10 { account.recordFirstAttempt(at: start) }
        #expect(account.payForRetry(at: start) == nil)
        #expect(account.payForRetry(at: start) == nil)
        let refusal = account.payForRetry(at: start)
        #expect(refusal == RetryBudgetAccount.Refusal(firstAttempts: 10, retries: 2, allowed: 2))
        #expect(refusal?.description == "2 retries already sent against 10 requests (2 allowed)")
        #expect(!account.isEmpty(at: start))
        #expect(account.isEmpty(at: start + .seconds(11)))
    }

    @Test func theDefaultsAreFinaglesAndOutOfRangeValuesAreClamped() {
        let budget = RetryBudget.default
        #expect(budget.share == 0.2 && budget.minimumPerSecond == 10 && budget.window == .seconds(10))
        #expect(!budget.perOrigin)
        #expect(budget.reserve == 100)
        let odd = RetryBudget(share: -1, minimumPerSecond: -5, window: .zero)
        #expect(odd.share == 0 && odd.minimumPerSecond == 0 && odd.window == .seconds(1))
    }

    @Test func originsCountApartOnlyWhenAskedTo() {
        let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        let a = URL(string: "http://127.0.0.1:8001/x")!
        let sameOrigin = URL(string: "HTTP://127.0.0.1:8001/y?z")!
        let b = URL(string: "http://127.0.0.1:8002/x")!
        let budget = RetryBudget(share: 1, minimumPerSecond: 0)

        let perClient = RetryBudgetLedger(budget: budget)
        perClient.recordFirstAttempt(to: a, at: start)
        #expect(perClient.payForRetry(to: b, at: start) == nil, "one account for the client")
        #expect(perClient.payForRetry(to: a, at: start) != nil)
        #expect(perClient.name(for: a) == "the client's retry budget")

        var origins = budget
        origins.perOrigin = true
        let perOrigin = RetryBudgetLedger(budget: origins)
        perOrigin.recordFirstAttempt(to: a, at: start)
        #expect(perOrigin.payForRetry(to: b, at: start) != nil, "b's account has no first attempts")
        #expect(perOrigin.payForRetry(to: sameOrigin, at: start) == nil, "a's account, by scheme, host and port")
        #expect(perOrigin.name(for: b) == "the retry budget of http://127.0.0.1:8002")
        #expect(
            perOrigin.name(for: URL(string: "https://example.com/")!) == "the retry budget of https://example.com:443")
    }

    @Test func eachClientHasABudgetOfItsOwn() {
        let middleware = ConnectMiddleware(retrier: quickPolicy)
        let first = Connect(middleware: middleware)
        let second = Connect(middleware: middleware)
        #expect(first.client.retryBudget != nil && second.client.retryBudget != nil)
        #expect(first.client.retryBudget !== second.client.retryBudget)
        let unbudgeted = Connect(middleware: ConnectMiddleware(retrier: quickPolicy, retryBudget: nil))
        #expect(unbudgeted.client.retryBudget == nil)
        #expect(Connect().client.retryBudget == nil, "no middleware, no retries to count")
    }

    /// Ten requests one after another to a server that always answers 503, three attempts each.
    /// Without a budget the server sees thirty. With half the first attempts and no reserve, the
    /// k-th request may retry once when k is even (k/2 ≥ the retries so far + 1) and never
    /// twice: fifteen reach the server, and each request fails saying the budget is spent.
    @Test func aServerThatAlwaysFailsSeesTheBudgetsShare() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next()
            return TestResponse(status: 503, body: Data("down".utf8))
        }
        defer { server.shutdown() }

        let unbounded = Connect(middleware: ConnectMiddleware(retrier: quickPolicy, retryBudget: nil))
        for _ in 0..<10 {
            let error = await connectError(unbounded.request(TestConnector(server, "/")))
            #expect(error?.statusCode == 503)
        }
        #expect(hits.value == 30)

        // A window no loaded machine outlasts, so that no count leaves it during the test.
        let budget = RetryBudget(share: 0.5, minimumPerSecond: 0, window: .seconds(3_600))
        let monitor = RetryCountingMonitor()
        let bounded = Connect(
            middleware: ConnectMiddleware(retriers: [quickPolicy], monitors: [monitor], retryBudget: budget))
        for index in 1...10 {
            let error = await connectError(bounded.request(TestConnector(server, "/")))
            guard case .transport(let failure)? = error else {
                Issue.record("request \(index): expected the budget's failure, got \(String(describing: error))")
                continue
            }
            #expect(failure.kind == .retryBudgetExhausted)
            #expect(failure.requestSent)
            #expect(failure.message.contains("503"), "names the attempt's own error: \(failure.message)")
            #expect(failure.message.contains("the client's retry budget is spent"))
        }
        #expect(hits.value == 30 + 15)
        #expect(monitor.retries.value == 5)
        #expect(monitor.failures.value == 10)
    }

    /// The default budget's reserve (a hundred retries in ten seconds) leaves a client that
    /// fails now and then retrying as its policy says.
    @Test func theDefaultBudgetLeavesOccasionalFailuresAlone() async throws {
        let hits = Hits()
        let server = try TestServer { _ in
            // Every other attempt fails: each request fails once and is retried.
            hits.next() % 2 == 1 ? TestResponse(status: 503) : .text("ok")
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))
        for _ in 0..<20 {
            let body = try await connect.request(TestConnector(server, "/")).value
            #expect(String(decoding: body, as: UTF8.self) == "ok")
        }
        #expect(hits.value == 40)
    }
}

/// Counts the retries scheduled and the requests that failed.
final class RetryCountingMonitor: ConnectMonitor {
    let retries = Hits()
    let failures = Hits()
    func retryScheduled(for request: Request, after error: any Error, delay: Duration, attempt: Int) {
        retries.next()
    }
    func requestFailed(_ request: Request, error: any Error, attempts: Int) { failures.next() }
}
