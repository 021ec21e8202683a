import Connect
import ConnectTestServer
import Foundation
import Synchronization

/// `make bench-resilience`: Connect with and without each of its rules for many requests, against
/// a server in the same process whose faults are scripted (so that every run meets the same
/// ones), side by side in one run:
///
/// - **Hedging.** 2% of the responses are 200 ms late (every fiftieth, in an order fixed by a
///   seeded generator). 2,000 GETs, 16 at a time, awaited: p50, p99 and p99.9 latency and the
///   requests the server saw, without middleware, with a middleware that does not hedge (a
///   retry policy: the path hedging takes, without the hedge), and with
///   `Hedging(delay: .percentile(0.95))`.
/// - **The retry budget.** 100 requests a second for 20 s, each retried up to twice
///   (`RetryPolicy(maximumAttempts: 3)`); the server answers 503 to everything for the middle
///   10 s. The requests the server saw during the outage, against the first attempts sent then,
///   without a budget and with the default one.
/// - **Coalescing.** 100 callers at once, each awaiting the same GET of a resource that takes
///   50 ms to answer, ten rounds: the requests the server saw per round and the callers'
///   latency, without and with `coalescesIdenticalRequests`.
///
/// `ResilienceBenchmark [hedging|budget|coalescing]` runs one of them; with no argument, all.
@main
struct ResilienceBenchmark {
    static func main() async throws {
        let which = CommandLine.arguments.dropFirst().first
        if which == nil || which == "hedging" { try await hedging() }
        if which == nil || which == "budget" { try await budget() }
        if which == nil || which == "coalescing" { try await coalescing() }
    }

    // MARK: - Hedging

    static func hedging() async throws {
        let total = Int(ProcessInfo.processInfo.environment["REQUESTS"] ?? "") ?? 2_000
        let inFlight = 16
        print("Hedging: \(total) GETs, \(inFlight) at a time; 2% of the responses 200 ms late")
        print("| client | p50 | p99 | p99.9 | requests the server saw |")
        print("| --- | --- | --- | --- | --- |")
        let clients: [(String, ConnectMiddleware)] = [
            ("no middleware", ConnectMiddleware()),
            ("RetryPolicy() alone: the middleware's path, no hedging", ConnectMiddleware(retrier: RetryPolicy())),
            ("Hedging(delay: .percentile(0.95))", ConnectMiddleware(hedging: Hedging()))
        ]
        for (name, middleware) in clients {
            let late = LateResponses(seed: 42)
            let server = try TestServer { _ in
                late.next()
                    ? TestResponse(status: 200, body: Data("late".utf8), behavior: .delay(.milliseconds(200)))
                    : .text("ok")
            }
            defer { server.shutdown() }
            let connect = Connect(middleware: middleware)
            let request = Request(url: server.baseURL.appendingPathComponent("item"))
            // Warm-up: connections open, and the hedging delay has its measurements.
            for _ in 0..<100 { _ = try await connect.send(request).value }
            let before = server.requests.count
            let latencies = try await measure(total: total, inFlight: inFlight) {
                _ = try await connect.send(request).value
            }
            let seen = server.requests.count - before
            let extra = Double(seen - total) / Double(total) * 100
            print(
                "| \(name) | \(format(latencies.percentile(0.5))) | \(format(latencies.percentile(0.99))) | "
                    + "\(format(latencies.percentile(0.999))) | \(seen) (\(String(format: "%+.1f", extra))%) |")
        }
        print()
    }

    /// Runs `total` of `operation`, `inFlight` at a time, and returns each one's wall time, sorted.
    static func measure(
        total: Int, inFlight: Int, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> [Duration] {
        let next = Tickets()
        return try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<inFlight {
                group.addTask {
                    var times: [Duration] = []
                    while next.take() < total {
                        let start = ContinuousClock.now
                        try await operation()
                        times.append(ContinuousClock.now - start)
                    }
                    return times
                }
            }
            var all: [Duration] = []
            for try await times in group { all += times }
            return all.sorted()
        }
    }

    // MARK: - The retry budget

    static func budget() async throws {
        let rate = 100
        let seconds = 20
        print(
            "Retry budget: \(rate) requests a second for \(seconds) s, up to 3 attempts each; the server down (503) for the middle 10 s"
        )
        print("| client | first attempts during the outage | requests the server saw then | extra |")
        print("| --- | --- | --- | --- |")
        for (name, budget) in [("no budget", nil), ("RetryBudget.default", RetryBudget.default)]
            as [(String, RetryBudget?)]
        {
            let outage = Outage()
            let server = try TestServer { _ in
                outage.seen()
                return outage.isDown ? TestResponse(status: 503) : .text("ok")
            }
            defer { server.shutdown() }
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(50), maximumDelay: .seconds(1))
            let connect = Connect(middleware: ConnectMiddleware(retrier: policy, retryBudget: budget))
            let request = Request(url: server.baseURL.appendingPathComponent("item"))
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<(rate * seconds) {
                    let due = start + .milliseconds(index * 1_000 / rate)
                    try await Task.sleep(until: due, clock: .continuous)
                    let elapsed = ContinuousClock.now - start
                    let down = elapsed >= .seconds(5) && elapsed < .seconds(15)
                    if down != outage.isDown { outage.set(down: down) }
                    if down { outage.firstAttemptSent() }
                    group.addTask { _ = try? await connect.send(request).value }
                }
                try await group.waitForAll()
            }
            let (first, seen) = outage.counts
            let extra = Double(seen - first) / Double(first) * 100
            print("| \(name) | \(first) | \(seen) | \(String(format: "%+.0f", extra))% |")
        }
        print()
    }

    // MARK: - Coalescing

    static func coalescing() async throws {
        let callers = 100
        let rounds = 10
        print("Coalescing: \(callers) callers at once of one GET that takes 50 ms, \(rounds) rounds")
        print("| client | requests the server saw per round | p50 | p99 |")
        print("| --- | --- | --- | --- |")
        for coalesces in [false, true] {
            let server = try TestServer { _ in
                TestResponse(status: 200, body: Data(repeating: 7, count: 4_096), behavior: .delay(.milliseconds(50)))
            }
            defer { server.shutdown() }
            var configuration = ConnectConfiguration()
            configuration.coalescesIdenticalRequests = coalesces
            let connect = Connect(configuration: configuration)
            let request = Request(url: server.baseURL.appendingPathComponent("config"))
            _ = try await connect.send(request).value
            let before = server.requests.count
            var latencies: [Duration] = []
            for _ in 0..<rounds {
                latencies += try await withThrowingTaskGroup(of: Duration.self) { group in
                    for _ in 0..<callers {
                        group.addTask {
                            let start = ContinuousClock.now
                            _ = try await connect.send(request).value
                            return ContinuousClock.now - start
                        }
                    }
                    var times: [Duration] = []
                    for try await time in group { times.append(time) }
                    return times
                }
            }
            latencies.sort()
            let perRound = Double(server.requests.count - before) / Double(rounds)
            print(
                "| \(coalesces ? "coalescesIdenticalRequests" : "each request its own") | "
                    + "\(String(format: "%g", perRound)) | \(format(latencies.percentile(0.5))) | "
                    + "\(format(latencies.percentile(0.99))) |")
        }
        print()
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", milliseconds)
    }
}

extension [Duration] {
    /// The `quantile` of a sorted array.
    func percentile(_ quantile: Double) -> Duration {
        self[Swift.min(Int((Double(count - 1) * quantile).rounded(.up)), count - 1)]
    }
}

/// Which responses are late: one in fifty, in an order a seeded generator fixes.
final class LateResponses: Sendable {
    private let state: Mutex<UInt64>

    init(seed: UInt64) {
        state = Mutex(seed)
    }

    func next() -> Bool {
        state.withLock { state in
            // A 64-bit linear congruential step (Knuth's MMIX constants); the top bits are uniform enough.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % 50 == 0
        }
    }
}

/// Whether the server is down, and what it saw while it was: first attempts the client sent then,
/// and requests that reached the server then.
final class Outage: Sendable {
    private let state = Mutex<(down: Bool, firstAttempts: Int, seen: Int)>((false, 0, 0))

    var isDown: Bool { state.withLock { $0.down } }
    var counts: (firstAttempts: Int, seen: Int) { state.withLock { ($0.firstAttempts, $0.seen) } }

    func set(down: Bool) { state.withLock { $0.down = down } }
    func firstAttemptSent() { state.withLock { $0.firstAttempts += 1 } }
    func seen() { state.withLock { if $0.down { $0.seen += 1 } } }
}

/// Numbers handed out in order, one to each caller.
final class Tickets: Sendable {
    private let next = Mutex(0)

    func take() -> Int {
        next.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
