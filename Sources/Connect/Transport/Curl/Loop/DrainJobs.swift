/// The jobs a ``CompletionDrain`` keeps to run, in the order they came, the first kept out of
/// the array: a task awaiting one request at a time is enqueued at each of its hops (into its
/// executor preference, resumed, back out of it), one job at a time, and an array emptied
/// between them would allocate its buffer anew for each.
///
/// Taken one batch at a time, so that the jobs a running job adds wait for the next batch: the
/// first alone while it is there, then the array.
struct DrainJobs<Job> {
    private var first: Job?
    private var rest: [Job] = []

    /// Whether no job waits.
    var isEmpty: Bool { first == nil && rest.isEmpty }

    /// Keeps `job` to run after the others.
    mutating func append(_ job: Job) {
        if isEmpty {
            first = job
        } else {
            rest.append(job)
        }
    }

    /// The jobs to run next, in order, now no longer kept; empty when none waits. One that waits
    /// alone comes without an array.
    mutating func takeBatch() -> Batch {
        if let job = first {
            first = nil
            return .one(job)
        }
        defer { rest = [] }
        return .many(rest)
    }

    /// Jobs taken to run.
    enum Batch {
        case one(Job)
        case many([Job])

        /// Calls `body` on each job, in order.
        func forEach(_ body: (Job) -> Void) {
            switch self {
            case .one(let job): body(job)
            case .many(let jobs): for job in jobs { body(job) }
            }
        }
    }
}
