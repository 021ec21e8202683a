import Foundation

/// The four halves of the contended workloads, each timed alone on one thread over a million
/// promises: completing with nobody waiting, attaching to a completed future, attaching to a
/// pending one, and completing with an observer waiting. Which thread leads a contended walk
/// follows from them: an observer that attaches faster than the completer completes stays ahead,
/// and then every completion also runs its observer; a completer faster than the observer stays
/// ahead, and each thread does its own cheap half. `FutureBenchmark --contended-halves`.
enum ContendedHalves {
    /// Nanoseconds per promise of each half, for one implementation.
    struct Costs {
        var completeUnobserved = 0.0
        var observeCompleted = 0.0
        var observePending = 0.0
        var completeObserved = 0.0
    }

    static func measure<S: ContendedWorkloads.Subject>(_ make: (Int) -> S) -> Costs {
        let count = ContendedWorkloads.promises
        var costs = Costs()
        do {
            let subject = make(count)
            costs.completeUnobserved = time(count) { for index in 0..<count { subject.complete(index) } }
            costs.observeCompleted = time(count) { for index in 0..<count { subject.observe(index) } }
        }
        do {
            let subject = make(count)
            costs.observePending = time(count) { for index in 0..<count { subject.observe(index) } }
            costs.completeObserved = time(count) { for index in 0..<count { subject.complete(index) } }
        }
        return costs
    }

    static func time(_ count: Int, _ body: () -> Void) -> Double {
        let start = ContinuousClock.now
        body()
        return Sample(elapsed: ContinuousClock.now - start, allocations: 0, steps: count).nanosecondsPerStep
    }

    /// Medians of `rounds` rounds, each measurement in a process of its own and the
    /// implementations taking turns (as `FutureBenchmark.contendedRow` does, for the same
    /// reason: with a million live promises, the heap an earlier measurement left would move the
    /// next one's figures), as a table.
    static func table(rounds: Int) -> String {
        var samples: [[Costs]] = [[], []]
        for _ in 0..<rounds {
            for implementation in 0..<2 {
                samples[implementation].append(measureInChild(implementation: implementation))
            }
        }
        func median(_ costs: [Costs], _ half: KeyPath<Costs, Double>) -> String {
            Row.format(costs.map { $0[keyPath: half] }.sorted()[costs.count / 2], 1)
        }
        let halves: [(String, KeyPath<Costs, Double>)] = [
            ("complete, nobody waiting", \.completeUnobserved),
            ("attach an observer to a completed future (it runs at once)", \.observeCompleted),
            ("attach an observer to a pending future", \.observePending),
            ("complete, an observer waiting (it runs)", \.completeObserved)
        ]
        var lines = [
            "| half, alone on one thread | ConnectFutures ns/promise | naive Mutex future ns/promise |",
            "| --- | ---: | ---: |"
        ]
        for (name, half) in halves {
            lines.append("| \(name) | \(median(samples[0], half)) | \(median(samples[1], half)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Runs `FutureBenchmark --contended-halves-sample IMPLEMENTATION` (0: ConnectFutures,
    /// 1: the naive future) and reads its four figures.
    static func measureInChild(implementation: Int) -> Costs {
        let fields = FutureBenchmark.numbersFromChild(["--contended-halves-sample", String(implementation)], count: 4)
        return Costs(
            completeUnobserved: fields[0], observeCompleted: fields[1], observePending: fields[2],
            completeObserved: fields[3])
    }

    /// The child side of `measureInChild`: the four figures, space-separated.
    static func printSample(implementation: Int) {
        let costs =
            implementation == 0
            ? measure(ContendedWorkloads.Connect.init(count:)) : measure(ContendedWorkloads.Naive.init(count:))
        print(costs.completeUnobserved, costs.observeCompleted, costs.observePending, costs.completeObserved)
    }
}
