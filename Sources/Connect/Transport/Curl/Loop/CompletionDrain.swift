#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// A drain of finished transfers that a thread runs on the callback queue synchronously
/// (`DispatchQueue.sync`), then continues the tasks its completions resumed: a loop thread that
/// completes what it received itself (`CompletionHandOff.drainHere`), or a thread of the global
/// pool that the hand-off sends (`CompletionHandOff.deliver`). The code the drain calls finds it
/// through a thread-specific value, so that the tasks it resumes continue on this thread instead
/// of waiting for another one to wake:
///
/// - a task that prefers ``CallbackQueueExecutor`` for this queue continues at the end of the
///   drain, still on the queue;
/// - a task that awaits a future while preferring ``AwaitingTaskExecutor`` continues after that,
///   off the queue, with no executor preference (as a thread of Swift's pool runs it).
///   Off the queue: the task's code is the app's, which may itself wait for the queue.
///
/// The awaiting tasks run one after another on this thread for up to ``continuingBudget`` (see
/// ``ContinuationBudget``); what is left then goes to Swift's pool, so that tasks with much to do
/// after their responses still run side by side on the pool's threads, while the many that only
/// send their next request and wait again cost no thread a wakeup each.
///
/// Only the thread running the drain touches `onQueue` and `afterwards`.
final class CompletionDrain {
    let queue: DispatchQueue
    // `@exclusivity(unchecked)` on the state below: the thread running the drain alone touches
    // it, one access at a time, so the runtime's dynamic checks (a thread-local lookup per
    // access, for every job a drain keeps) would find nothing.
    /// Whether the drain still runs on ``queue``: tasks for the queue can still join it.
    @exclusivity(unchecked) private(set) var isOnQueue = true
    @exclusivity(unchecked) private var onQueue = DrainJobs<(job: UnownedJob, executor: UnownedTaskExecutor)>()
    @exclusivity(unchecked) private var afterwards = DrainJobs<UnownedJob>()

    /// How long the drain's thread continues awaiting tasks before it hands the rest to Swift's
    /// pool: many times what a task that decodes a response and sends the next request takes,
    /// and short enough that a task with more to do holds the others back little.
    static let continuingBudget = Duration.milliseconds(1)
    /// A drain's budget before it begins, made once: in nanoseconds, not `Duration`s.
    private static let unspentBudget = ContinuationBudget(continuingBudget)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "cannot create a thread-specific key")
        return key
    }()

    /// A drain on `queue`, to run once (``run(on:_:)``) or again and again from one thread (a
    /// loop thread's own, ``run(_:)``).
    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The drain the calling thread runs, if any.
    static var current: CompletionDrain? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<CompletionDrain>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` as a drain on `queue` (synchronously), then the tasks it resumed: those for
    /// the queue on it, the awaiting ones after it.
    static func run(on queue: DispatchQueue, _ body: () -> Void) {
        CompletionDrain(queue: queue).run(body)
    }

    /// Runs `body` as this drain, as ``run(on:_:)`` does. A drain runs again once it has
    /// returned (it ends with nothing left to run), from the thread that ran it before.
    func run(_ body: () -> Void) {
        isOnQueue = true
        withExtendedLifetime(self) {
            pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
            defer { pthread_setspecific(Self.key, nil) }
            queue.sync {
                withAutoreleasePool {
                    body()
                    runOnQueue()
                }
            }
            isOnQueue = false
            withAutoreleasePool { runAfterwards() }
        }
    }

    /// Keeps `job` to run at the end of the drain, on the queue.
    func add(_ job: UnownedJob, on executor: UnownedTaskExecutor) {
        onQueue.append((job, executor))
    }

    /// Keeps `job` to run once the drain has left the queue, with no executor preference.
    func continueAfterwards(_ job: UnownedJob) {
        afterwards.append(job)
    }

    private func runOnQueue() {
        while !onQueue.isEmpty {
            onQueue.takeBatch().forEach { $0.job.runSynchronously(on: $0.executor) }
        }
    }

    /// Runs the awaiting tasks, and those they resume in turn, as the global pool would (the
    /// global executor's task-executor reference is "no preference"), while
    /// ``continuingBudget`` lasts; hands the rest to the pool.
    private func runAfterwards() {
        let noPreference = globalConcurrentExecutor.asUnownedTaskExecutor()
        var budget = Self.unspentBudget
        func run(_ job: UnownedJob) {
            if budget.runsNext(now: MonotonicInstant.now) {
                job.runSynchronously(on: noPreference)
            } else {
                globalConcurrentExecutor.enqueue(job)
            }
        }
        while !afterwards.isEmpty {
            afterwards.takeBatch().forEach(run)
        }
    }
}

/// Runs `body` in an autorelease pool where Objective-C objects exist: on a thread of Connect's
/// own, unlike on libdispatch's, nothing else drains the objects callbacks autorelease.
private func withAutoreleasePool(_ body: () -> Void) {
    #if canImport(ObjectiveC)
    autoreleasepool(invoking: body)
    #else
    body()
    #endif
}
