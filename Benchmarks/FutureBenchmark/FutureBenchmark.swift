import AllocationCounter
import ConnectFutures
import Dispatch
import NIOCore
import NIOEmbedded
import Foundation

/// Runs the same future workloads on ConnectFutures, SwiftNIO's `EventLoopFuture`, a naive
/// Mutex future and plain async/await, in one process, and prints nanoseconds and heap
/// allocations per step side by side, each implementation's time as a ratio to the references
/// of its row, and the targets ConnectFutures is held to.
@main
struct FutureBenchmark {
    static let iterations = 200_000
    static let rounds = 7
    static let contendedRounds = 5

    static func main() {
        // `FutureBenchmark --profile NAME [COUNT]` runs one workload COUNT times, for `perf record`.
        if let flag = CommandLine.arguments.firstIndex(of: "--profile"), flag + 1 < CommandLine.arguments.count {
            return profile(
                CommandLine.arguments[flag + 1],
                count: flag + 2 < CommandLine.arguments.count ? Int(CommandLine.arguments[flag + 2]) : nil)
        }
        if let flag = CommandLine.arguments.firstIndex(of: "--contended-sample"), flag + 2 < CommandLine.arguments.count
        {
            return printContendedSample(
                implementation: Int(CommandLine.arguments[flag + 1]) ?? 0, direction: CommandLine.arguments[flag + 2])
        }
        // `--contended-halves` times each half of the contended workloads alone (see ContendedHalves).
        if let flag = CommandLine.arguments.firstIndex(of: "--contended-halves-sample"),
            flag + 1 < CommandLine.arguments.count
        {
            return ContendedHalves.printSample(implementation: Int(CommandLine.arguments[flag + 1]) ?? 0)
        }
        if CommandLine.arguments.contains("--contended-halves") {
            return print(ContendedHalves.table(rounds: contendedRounds))
        }
        // `--only chains|await|contended` runs one group of workloads.
        let only = CommandLine.arguments.firstIndex(of: "--only").map { CommandLine.arguments[$0 + 1] }
        var rows: [Row] = []
        if only == nil || only == "chains" { rows += chainRows() }
        if only == nil || only == "await" { rows.append(awaitRow()) }
        if only == nil || only == "contended" {
            rows.append(contendedRow(.forward, "contended: completer and observer walk together"))
            rows.append(contendedRow(.meeting, "contended: completer and observer meet in the middle"))
        }
        print(Row.table(rows))
        if only == nil {
            print()
            print(targets(rows))
        }
    }

    // MARK: Workloads

    /// Chains on one thread. Everything runs on the main thread: an EmbeddedEventLoop must stay
    /// on the thread that made it.
    static func chainRows() -> [Row] {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let asyncChain = measureAsyncChainBlocking()
        let steps = ChainWorkloads.steps
        func row(
            _ workload: String, _ connect: @escaping () -> Void, _ nio: @escaping () -> Void,
            _ naive: @escaping () -> Void
        ) -> Row {
            let samples = measureInTurn([connect, nio, naive], steps: steps)
            return Row(
                workload: workload,
                results: [
                    ("ConnectFutures", samples[0]), ("NIO EventLoopFuture", samples[1]),
                    ("naive Mutex future", samples[2]), ("async/await", asyncChain)
                ], references: ["NIO EventLoopFuture", "naive Mutex future"])
        }
        return [
            row(
                "map ×10 on a completed future", ChainWorkloads.connectMapCompleted,
                { ChainWorkloads.nioMapCompleted(loop) }, ChainWorkloads.naiveMapCompleted),
            row(
                "map ×10 before completion", ChainWorkloads.connectMapPending, { ChainWorkloads.nioMapPending(loop) },
                ChainWorkloads.naiveMapPending),
            row(
                "flatMap ×10, completed inner", ChainWorkloads.connectFlatMap, { ChainWorkloads.nioFlatMap(loop) },
                ChainWorkloads.naiveFlatMap)
        ]
    }

    static func awaitRow() -> Row {
        let count = iterations * ChainWorkloads.steps
        let samples = blocking {
            await measureInTurnAsync(
                [
                    { _ = try await AwaitWorkloads.connectFutureValue(count) },
                    { _ = try await AwaitWorkloads.plainAsyncCall(count) },
                    { _ = try await AwaitWorkloads.continuationResumedInline(count) }
                ], steps: count)
        }
        return Row(
            workload: "await a completed future",
            results: [
                ("ConnectFutures .value", samples[0]), ("plain async call", samples[1]),
                ("withUnsafeContinuation resumed at once", samples[2])
            ], references: ["plain async call"])
    }

    /// Each sample runs in a process of its own, the implementations taking turns: a million
    /// live promises make the workload depend on where the heap puts them, and a heap that an
    /// earlier round left fragmented would favour or penalise whoever comes next.
    static func contendedRow(_ direction: ContendedWorkloads.Direction, _ workload: String) -> Row {
        let implementations = [
            "ConnectFutures", "naive Mutex future", "naive future with a promise handle", "NIO on its event loop"
        ]
        var samples = Array(repeating: [Sample](), count: implementations.count)
        for _ in 0..<contendedRounds {
            for index in implementations.indices {
                samples[index].append(contendedSampleInChild(implementation: index, direction))
            }
        }
        return Row(
            workload: workload + " (per promise)",
            results: zip(implementations, samples.map(Sample.median)).map { ($0, $1) },
            references: ["naive Mutex future", "naive future with a promise handle", "NIO on its event loop"])
    }

    /// Runs `FutureBenchmark --contended-sample IMPLEMENTATION DIRECTION` and reads its sample.
    static func contendedSampleInChild(implementation: Int, _ direction: ContendedWorkloads.Direction) -> Sample {
        let fields = numbersFromChild(
            ["--contended-sample", String(implementation), direction == .forward ? "forward" : "meeting"], count: 2)
        return Sample(nanosecondsPerStep: fields[0], allocationsPerStep: fields[1])
    }

    /// Runs this program again with `arguments` and reads the `count` numbers it prints,
    /// space-separated; stops the benchmark if it fails or prints anything else.
    static func numbersFromChild(_ arguments: [String], count: Int) -> [Double] {
        let child = Process()
        child.executableURL = Bundle.main.executableURL
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        do {
            try child.run()
        } catch {
            fatalError("cannot start \(child.executableURL!.path): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard child.terminationStatus == 0, fields.count == count else {
            fatalError("\(arguments.joined(separator: " ")) failed: \(String(decoding: data, as: UTF8.self))")
        }
        return fields
    }

    /// The child side of `contendedSampleInChild`: one sample, printed as "ns allocations".
    static func printContendedSample(implementation: Int, direction: String) {
        let direction: ContendedWorkloads.Direction = direction == "forward" ? .forward : .meeting
        let count = ContendedWorkloads.promises
        let sample: Sample
        switch implementation {
        case 0: sample = ContendedWorkloads.run(ContendedWorkloads.Connect(count: count), direction)
        case 1: sample = ContendedWorkloads.run(ContendedWorkloads.Naive(count: count), direction)
        case 2: sample = ContendedWorkloads.run(ContendedWorkloads.NaiveWithHandle(count: count), direction)
        default:
            let subject = ContendedWorkloads.NIO(count: count)
            sample = ContendedWorkloads.run(subject, direction, completeOn: subject.loop)
        }
        print(sample.nanosecondsPerStep, sample.allocationsPerStep)
    }

    /// What ConnectFutures is held to, each with the ratio this run measured. The last two
    /// rows guard workloads that were already cheap.
    static func targets(_ rows: [Row]) -> String {
        func row(_ prefix: String) -> Row { rows.first { $0.workload.hasPrefix(prefix) }! }
        let checks: [(String, Double, Double)] = [
            (
                "await a completed future vs a plain async call",
                row("await").ratio("ConnectFutures .value", to: "plain async call"), 1.5
            ),
            (
                "contended, walking together, vs the naive future",
                row("contended: completer and observer walk").ratio("ConnectFutures", to: "naive Mutex future"), 1.0
            ),
            (
                "contended, meeting in the middle, vs the naive future",
                row("contended: completer and observer meet").ratio("ConnectFutures", to: "naive Mutex future"), 1.0
            ),
            (
                "map ×10 before completion vs NIO",
                row("map ×10 before").ratio("ConnectFutures", to: "NIO EventLoopFuture"), 0.35
            ),
            (
                "map ×10 on a completed future vs NIO",
                row("map ×10 on").ratio("ConnectFutures", to: "NIO EventLoopFuture"), 0.3
            ),
            (
                "flatMap ×10, completed inner, vs NIO",
                row("flatMap").ratio("ConnectFutures", to: "NIO EventLoopFuture"), 0.15
            )
        ]
        let allocations: [(String, Double, Double)] = [
            ("await a completed future", row("await").sample("ConnectFutures .value").allocationsPerStep, 0),
            ("map ×10 before completion", row("map ×10 before").sample("ConnectFutures").allocationsPerStep, 1.1)
        ]
        // Not targets: the same two rows against the naive future given a producer handle, the
        // design ConnectFutures shares (see `NaivePromise`), for telling design from code.
        let sameDesign: [(String, Double, Double)] = [
            (
                "contended, walking together, vs the naive future with a promise handle",
                row("contended: completer and observer walk").ratio(
                    "ConnectFutures", to: "naive future with a promise handle"), 1.0
            ),
            (
                "contended, meeting in the middle, vs the naive future with a promise handle",
                row("contended: completer and observer meet").ratio(
                    "ConnectFutures", to: "naive future with a promise handle"), 1.0
            )
        ]
        var lines = ["| target | measured | limit | |", "| --- | ---: | ---: | --- |"]
        for (name, measured, limit) in checks {
            lines.append(
                "| \(name) | \(Row.format(measured, 2))x | \(Row.format(limit, 2))x | \(measured <= limit ? "met" : "MISSED") |"
            )
        }
        for (name, measured, limit) in allocations {
            lines.append(
                "| allocations per step, \(name) | \(Row.format(measured, 2)) | \(Row.format(limit, 2)) | \(measured <= limit + 0.005 ? "met" : "MISSED") |"
            )
        }
        for (name, measured, limit) in sameDesign {
            lines.append(
                "| (for reference) \(name) | \(Row.format(measured, 2))x | \(Row.format(limit, 2))x | \(measured <= limit ? "at or under" : "over") |"
            )
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Measuring

    /// The medians of `rounds` runs of `iterations` calls of each workload, per step, measured in
    /// turn round by round: on a machine whose speed drifts (this VM's does, by up to half), all
    /// then see the same conditions and their ratios hold.
    static func measureInTurn(_ workloads: [() -> Void], steps: Int) -> [Sample] {
        for _ in 0..<(iterations / 10) {
            for workload in workloads { workload() }
        }
        var samples = Array(repeating: [Sample](), count: workloads.count)
        for _ in 0..<rounds {
            for (index, workload) in workloads.enumerated() {
                let allocationsBefore = connect_allocation_count()
                let start = ContinuousClock.now
                for _ in 0..<iterations { workload() }
                let elapsed = ContinuousClock.now - start
                samples[index].append(
                    Sample(
                        elapsed: elapsed, allocations: connect_allocation_count() - allocationsBefore,
                        steps: iterations * steps))
            }
        }
        return samples.map(Sample.median)
    }

    /// `measureInTurn` for async workloads that each run all their steps in one call.
    static func measureInTurnAsync(_ workloads: [@Sendable () async throws -> Void], steps: Int) async -> [Sample] {
        for workload in workloads { try? await workload() }
        var samples = Array(repeating: [Sample](), count: workloads.count)
        for _ in 0..<rounds {
            for (index, workload) in workloads.enumerated() {
                let allocationsBefore = connect_allocation_count()
                let start = ContinuousClock.now
                try? await workload()
                let elapsed = ContinuousClock.now - start
                samples[index].append(
                    Sample(elapsed: elapsed, allocations: connect_allocation_count() - allocationsBefore, steps: steps))
            }
        }
        return samples.map(Sample.median)
    }

    /// The async/await reference for the chains: one task runs them; the same figure serves all
    /// three rows.
    static func measureAsyncChainBlocking() -> Sample {
        blocking {
            await measureInTurnAsync(
                [
                    { for _ in 0..<iterations { await ChainWorkloads.asyncChain() } }
                ], steps: iterations * ChainWorkloads.steps)[0]
        }
    }

    /// Runs `body` in a task and waits for it on this thread.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    static func profile(_ name: String, count: Int?) {
        let workloads: [String: () -> Void] = [
            "map-completed": ChainWorkloads.connectMapCompleted, "map-pending": ChainWorkloads.connectMapPending,
            "flatmap": ChainWorkloads.connectFlatMap,
            "await": { _ = blocking { try! await AwaitWorkloads.connectFutureValue(1000) } },
            "contended": {
                _ = ContendedWorkloads.run(ContendedWorkloads.Connect(count: ContendedWorkloads.promises), .forward)
            },
            "contended-naive": {
                _ = ContendedWorkloads.run(ContendedWorkloads.Naive(count: ContendedWorkloads.promises), .forward)
            }
        ]
        guard let workload = workloads[name] else { return print("workloads: \(workloads.keys.sorted())") }
        for _ in 0..<(count ?? 2_000_000) { workload() }
    }
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Carries a task's result to the thread waiting for it.
final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written by one task before the semaphore is signalled, read after the wait.
    var value: T?
}
