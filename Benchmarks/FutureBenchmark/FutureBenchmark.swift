import AllocationCounter
import ConnectFutures
import Foundation
import NIOCore
import NIOEmbedded

/// Runs the same three future workloads on ConnectFutures, SwiftNIO's `EventLoopFuture`
/// (on an `EmbeddedEventLoop`) and plain async/await, in one process, and prints nanoseconds
/// and heap allocations per step side by side.
@main
struct FutureBenchmark {
    static let steps = 10
    static let iterations = 200_000
    static let rounds = 7

    static func main() {
        // `FutureBenchmark --profile NAME [COUNT]` runs one workload COUNT times, for `perf record`.
        if let flag = CommandLine.arguments.firstIndex(of: "--profile"), flag + 1 < CommandLine.arguments.count {
            let workloads: [String: () -> Void] = [
                "map-completed": connectMapCompleted, "map-pending": connectMapPending, "flatmap": connectFlatMap,
            ]
            guard let workload = workloads[CommandLine.arguments[flag + 1]] else { return print("workloads: \(workloads.keys.sorted())") }
            let count = flag + 2 < CommandLine.arguments.count ? Int(CommandLine.arguments[flag + 2]) ?? 2_000_000 : 2_000_000
            for _ in 0..<count { workload() }
            return
        }
        // Everything runs on the main thread: an EmbeddedEventLoop must stay on the thread that
        // made it, and each workload is single-threaded anyway.
        let loop = EmbeddedEventLoop()
        let asyncResult = measureAsyncChainBlocking()
        var rows: [Row] = []

        let mapCompleted = measureSideBySide({ connectMapCompleted() }, { nioMapCompleted(loop) })
        rows.append(Row(workload: "map ×10 on a completed future", results: [
            ("ConnectFutures", mapCompleted.0), ("NIO EventLoopFuture", mapCompleted.1), ("async/await", asyncResult),
        ]))
        let mapPending = measureSideBySide({ connectMapPending() }, { nioMapPending(loop) })
        rows.append(Row(workload: "map ×10 before completion", results: [
            ("ConnectFutures", mapPending.0), ("NIO EventLoopFuture", mapPending.1), ("async/await", asyncResult),
        ]))
        let flatMap = measureSideBySide({ connectFlatMap() }, { nioFlatMap(loop) })
        rows.append(Row(workload: "flatMap ×10, completed inner", results: [
            ("ConnectFutures", flatMap.0), ("NIO EventLoopFuture", flatMap.1), ("async/await", asyncResult),
        ]))
        try? loop.syncShutdownGracefully()
        print(Row.table(rows))
    }

    // MARK: ConnectFutures

    @inline(never)
    static func connectMapCompleted() {
        var future = Future(value: 0)
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.observe { blackHole($0) }
    }

    @inline(never)
    static func connectMapPending() {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.observe { blackHole($0) }
        promise.succeed(0)
    }

    @inline(never)
    static func connectFlatMap() {
        var future = Future(value: 0)
        for _ in 0..<steps { future = future.flatMap { Future(value: $0 &+ 1) } }
        future.observe { blackHole($0) }
    }

    // MARK: SwiftNIO

    @inline(never)
    static func nioMapCompleted(_ loop: EmbeddedEventLoop) {
        var future = loop.makeSucceededFuture(0)
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.whenComplete { blackHole($0) }
    }

    @inline(never)
    static func nioMapPending(_ loop: EmbeddedEventLoop) {
        let promise = loop.makePromise(of: Int.self)
        var future = promise.futureResult
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.whenComplete { blackHole($0) }
        promise.succeed(0)
    }

    @inline(never)
    static func nioFlatMap(_ loop: EmbeddedEventLoop) {
        var future = loop.makeSucceededFuture(0)
        for _ in 0..<steps { future = future.flatMap { loop.makeSucceededFuture($0 &+ 1) } }
        future.whenComplete { blackHole($0) }
    }

    // MARK: async/await

    @inline(never)
    static func asyncStep(_ value: Int) async -> Int { value &+ 1 }

    @inline(never)
    static func asyncChain() async {
        var value = 0
        for _ in 0..<steps { value = await asyncStep(value) }
        blackHole(value)
    }

    // MARK: Measuring

    /// The medians of `rounds` runs of `iterations` calls each, per step, of two workloads
    /// measured in alternation: on a machine whose speed drifts (this VM's does, by up to half),
    /// both then see the same conditions and their ratio holds.
    static func measureSideBySide(_ first: () -> Void, _ second: () -> Void) -> (Result, Result) {
        for _ in 0..<(iterations / 10) {
            first()
            second()
        }
        var firstSamples: [Result] = []
        var secondSamples: [Result] = []
        for _ in 0..<rounds {
            firstSamples.append(sample(first))
            secondSamples.append(sample(second))
        }
        func median(_ samples: [Result]) -> Result {
            samples.sorted { $0.nanosecondsPerStep < $1.nanosecondsPerStep }[rounds / 2]
        }
        return (median(firstSamples), median(secondSamples))
    }

    /// One run of `iterations` calls, per step.
    static func sample(_ body: () -> Void) -> Result {
        let allocationsBefore = connect_allocation_count()
        let start = ContinuousClock.now
        for _ in 0..<iterations { body() }
        let elapsed = ContinuousClock.now - start
        let allocations = connect_allocation_count() - allocationsBefore
        return Result(elapsed: elapsed, allocations: allocations, steps: iterations * steps)
    }

    /// The async/await reference: one task runs the chain; the same figure serves all three rows.
    static func measureAsyncChainBlocking() -> Result {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        Task {
            box.result = await measureAsyncChain()
            done.signal()
        }
        done.wait()
        return box.result!
    }

    static func measureAsyncChain() async -> Result {
        for _ in 0..<(iterations / 10) { await asyncChain() }
        var samples: [Result] = []
        for _ in 0..<rounds {
            let allocationsBefore = connect_allocation_count()
            let start = ContinuousClock.now
            for _ in 0..<iterations { await asyncChain() }
            let elapsed = ContinuousClock.now - start
            let allocations = connect_allocation_count() - allocationsBefore
            samples.append(Result(elapsed: elapsed, allocations: allocations, steps: iterations * steps))
        }
        return samples.sorted { $0.nanosecondsPerStep < $1.nanosecondsPerStep }[rounds / 2]
    }
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

final class ResultBox: @unchecked Sendable {
    // @unchecked: written by one task before the semaphore is signalled, read after the wait.
    var result: Result?
}

struct Result: Sendable {
    let nanosecondsPerStep: Double
    let allocationsPerStep: Double

    init(elapsed: Duration, allocations: UInt64, steps: Int) {
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        nanosecondsPerStep = nanoseconds / Double(steps)
        allocationsPerStep = Double(allocations) / Double(steps)
    }
}

struct Row {
    let workload: String
    let results: [(String, Result)]

    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| workload | implementation | ns/step | allocations/step | time vs NIO | allocations vs NIO |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for row in rows {
            let nio = row.results.first { $0.0.hasPrefix("NIO") }!.1
            for (name, result) in row.results {
                let timeRatio = result.nanosecondsPerStep / nio.nanosecondsPerStep
                let allocationRatio = nio.allocationsPerStep > 0 ? result.allocationsPerStep / nio.allocationsPerStep : 0
                lines.append("| \(row.workload) | \(name) | \(format(result.nanosecondsPerStep, 1)) | \(format(result.allocationsPerStep, 2)) | \(format(timeRatio, 2))x | \(format(allocationRatio, 2))x |")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
