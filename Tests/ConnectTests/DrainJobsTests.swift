import Testing

@testable import Connect

/// `DrainJobs`: the jobs come out in the order they went in, a batch at a time, the first alone
/// while it is there, then the rest; a job added while a batch runs waits for the next batch.
struct DrainJobsTests {
    /// What a test does to the jobs: add one, or take a batch, which must hold these.
    enum Step: CustomTestStringConvertible {
        case add(Int)
        case take([Int])

        var testDescription: String {
            switch self {
            case .add(let job): "add \(job)"
            case .take(let jobs): "take \(jobs)"
            }
        }
    }

    static let cases: [(String, [Step])] = [
        ("nothing kept: an empty batch", [.take([])]),
        ("one job, alone", [.add(1), .take([1]), .take([])]),
        ("the first alone, then the rest together", [.add(1), .add(2), .add(3), .take([1]), .take([2, 3]), .take([])]),
        (
            "a job added after the first was taken joins the rest",
            [.add(1), .add(2), .take([1]), .add(3), .take([2, 3]), .take([])]
        ),
        (
            "a job added while a batch runs is the next first",
            [.add(1), .add(2), .add(3), .take([1]), .take([2, 3]), .add(4), .add(5), .take([4]), .take([5])]
        ),
        ("one job after another, each alone", [.add(1), .take([1]), .add(2), .take([2]), .add(3), .take([3])])
    ]

    @Test(arguments: cases)
    func jobsComeOutInOrder(_ name: String, _ steps: [Step]) {
        var jobs = DrainJobs<Int>()
        for (index, step) in steps.enumerated() {
            switch step {
            case .add(let job):
                jobs.append(job)
                #expect(!jobs.isEmpty)
            case .take(let expected):
                var taken: [Int] = []
                jobs.takeBatch().forEach { taken.append($0) }
                #expect(taken == expected, "step \(index) of \(name)")
            }
        }
    }

    /// A task awaiting one request at a time is enqueued one hop at a time: each job, waiting
    /// alone, comes without an array.
    @Test func aJobWaitingAloneComesWithoutAnArray() {
        var jobs = DrainJobs<Int>()
        for job in 1...3 {
            jobs.append(job)
            guard case .one(let taken) = jobs.takeBatch() else {
                Issue.record("job \(job) came in an array")
                continue
            }
            #expect(taken == job)
            #expect(jobs.isEmpty)
        }
    }
}
