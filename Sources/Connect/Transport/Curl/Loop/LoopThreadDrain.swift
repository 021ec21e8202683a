#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// The drain a loop thread runs on the callback queue (`CompletionHandOff.drainHere`), known to
/// the code it calls through a thread-specific value: tasks that a completion resumes on
/// ``CallbackQueueExecutor`` continue at the end of the drain, on the same thread and still on
/// the queue, instead of waiting for a thread of the queue's to wake.
///
/// Only the thread running the drain touches `jobs`.
final class LoopThreadDrain {
    let queue: DispatchQueue
    private var jobs: [(job: UnownedJob, executor: UnownedTaskExecutor)] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "cannot create a thread-specific key")
        return key
    }()

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The drain the calling thread runs on `queue`, if any.
    static func current(on queue: DispatchQueue) -> LoopThreadDrain? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let drain = Unmanaged<LoopThreadDrain>.fromOpaque(pointer).takeUnretainedValue()
        return drain.queue === queue ? drain : nil
    }

    /// Runs `body` as a drain on `queue` (the caller is on it), then the jobs it resumed.
    static func run(on queue: DispatchQueue, _ body: () -> Void) {
        let drain = LoopThreadDrain(queue: queue)
        withExtendedLifetime(drain) {
            pthread_setspecific(key, Unmanaged.passUnretained(drain).toOpaque())
            defer { pthread_setspecific(key, nil) }
            body()
            while !drain.jobs.isEmpty {
                let ready = drain.jobs
                drain.jobs.removeAll()
                for (job, executor) in ready { job.runSynchronously(on: executor) }
            }
        }
    }

    /// Keeps `job` to run at the end of the drain.
    func add(_ job: UnownedJob, on executor: UnownedTaskExecutor) {
        jobs.append((job, executor))
    }
}
