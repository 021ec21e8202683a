import Testing

@testable import Connect

/// How long a drain's thread keeps continuing awaiting tasks itself (`CompletionDrain`).
@Suite("Continuation budget")
struct ContinuationBudgetTests {
    /// Each step: when the next task would begin (milliseconds after the first), and whether it
    /// runs on the drain's thread.
    @Test(arguments: [
        ("one task", [(0.0, true)]),
        ("quick tasks", [(0.0, true), (0.1, true), (0.4, true), (0.99, true)]),
        ("the budget runs out", [(0.0, true), (0.5, true), (1.0, false), (1.1, false)]),
        ("a long first task", [(0.0, true), (30.0, false), (30.1, false)]),
        ("spent stays spent, whatever the clock says", [(0.0, true), (2.0, false), (0.5, false)])
    ])
    func theDrainContinuesTasksWhileTheBudgetLasts(_ name: String, steps: [(Double, Bool)]) {
        var budget = ContinuationBudget(.milliseconds(1))
        let start: Int64 = 5_000_000_000
        for (index, (milliseconds, runsHere)) in steps.enumerated() {
            let now = MonotonicInstant(nanoseconds: start + Int64(milliseconds * 1_000_000))
            let runs = budget.runsNext(now: now)
            #expect(runs == runsHere, "\(name): task \(index + 1)")
        }
    }

    /// The clock is not read for a task the budget no longer covers.
    @Test func aSpentBudgetReadsNoClock() {
        var budget = ContinuationBudget(.milliseconds(1))
        var reads = 0
        func now(_ milliseconds: Int64) -> MonotonicInstant {
            reads += 1
            return MonotonicInstant(nanoseconds: milliseconds * 1_000_000)
        }
        let runs = [budget.runsNext(now: now(0)), budget.runsNext(now: now(5)), budget.runsNext(now: now(6))]
        #expect(runs == [true, false, false])
        #expect(reads == 2)
    }
}
