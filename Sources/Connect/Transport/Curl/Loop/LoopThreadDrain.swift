#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// The drain a loop thread runs on the callback queue (`CompletionHandOff.drainHere`), known to
/// the code it calls through a thread-specific value, so that the tasks its completions resume
/// continue on this thread instead of waiting for another one to wake:
///
/// - a task that prefers ``CallbackQueueExecutor`` for this queue continues at the end of the
///   drain, still on the queue;
/// - a task that awaits a future while preferring ``AwaitingTaskExecutor`` continues after that,
///   off the queue, with no executor preference (as a thread of Swift's global pool runs it).
///   Off the queue: the task's code is the app's, which may itself wait for the queue.
///
/// Only the thread running the drain touches `onQueue` and `afterwards`.
final class LoopThreadDrain {
    let queue: DispatchQueue
    /// Whether the drain still runs on ``queue``: tasks for the queue can still join it.
    private(set) var isOnQueue = true
    private var onQueue: [(job: UnownedJob, executor: UnownedTaskExecutor)] = []
    private var afterwards: [UnownedJob] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "cannot create a thread-specific key")
        return key
    }()

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The drain the calling thread runs, if any.
    static var current: LoopThreadDrain? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<LoopThreadDrain>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` as a drain on `queue` (synchronously, from a loop thread), then the tasks it
    /// resumed: those for the queue on it, the awaiting ones after it.
    static func run(on queue: DispatchQueue, _ body: () -> Void) {
        let drain = LoopThreadDrain(queue: queue)
        withExtendedLifetime(drain) {
            pthread_setspecific(key, Unmanaged.passUnretained(drain).toOpaque())
            defer { pthread_setspecific(key, nil) }
            queue.sync {
                withAutoreleasePool {
                    body()
                    drain.runOnQueue()
                }
            }
            drain.isOnQueue = false
            withAutoreleasePool { drain.runAfterwards() }
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
            let ready = onQueue
            onQueue.removeAll()
            for (job, executor) in ready { job.runSynchronously(on: executor) }
        }
    }

    /// Runs the awaiting tasks, and those they resume in turn, as the global pool would: the
    /// global executor's task-executor reference is "no preference".
    private func runAfterwards() {
        let noPreference = globalConcurrentExecutor.asUnownedTaskExecutor()
        while !afterwards.isEmpty {
            let ready = afterwards
            afterwards.removeAll()
            for job in ready { job.runSynchronously(on: noPreference) }
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
