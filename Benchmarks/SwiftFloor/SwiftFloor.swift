import BenchmarkReport
import CCurlFloor
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The least a Swift client on libcurl does for a GET, to set beside raw C: `raw_multi.c`'s loop
/// and options, one thread, and per request what any Swift API that hands over the body must do:
/// an object for the exchange, the body as a `Data` of its own, and a closure that receives it
/// and starts the next request. No connector, no request building, no checks, no futures: the
/// floor under Connect's design in Swift, as `raw_multi.c` is the floor in C.
///
/// With `await`, INFLIGHT tasks each await one response after another instead (`get()`), and
/// the loop's thread is the tasks' executor: a response resumes its task, which runs on that
/// thread as soon as the loop has read what it can, with no other thread and no hop. The least an
/// awaited request costs any Swift client on libcurl: the floor under Connect's awaited rows.
///
/// With `await-per-request`, the tasks prefer no executor and each request prefers the loop's
/// thread only around its wait, the shape a library's `await` has when the app chose no
/// executor (Connect's `value`): into the preference from Swift's pool, the continuation, and
/// back out to the pool, three jobs a request. The floor under Connect's default awaited rows.
/// usage: SwiftFloor URL TOTAL INFLIGHT [await|await-per-request]
/// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
@main
struct SwiftFloor {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let total = Int(arguments[2]), let inflight = Int(arguments[3]), inflight > 0 else {
            let usage = "usage: SwiftFloor URL TOTAL INFLIGHT [await|await-per-request]\n"
            _ = write(2, usage, usage.utf8.count)
            exit(2)
        }
        curl_global_init(Int(CURL_GLOBAL_ALL))
        let client = Client(url: arguments[1], inflight: inflight)
        let mode = arguments.count > 4 ? arguments[4] : ""
        // The warm-up opens the connections once, as the other clients' does.
        BenchmarkReport.measure(total: total, warmUp: min(total, inflight * 4)) {
            switch mode {
            case "await": client.runAwaited(total: $0, tasks: inflight)
            case "await-per-request": client.runAwaitedPerRequest(total: $0, tasks: inflight)
            default: client.run(total: $0)
            }
        }
    }
}

/// One request in flight: where its body goes, and who receives it.
final class Exchange {
    let handle: UnsafeMutableRawPointer
    let body: UnsafeMutablePointer<Body>
    let completion: (Result<Data, CurlFailure>) -> Void

    init(
        handle: UnsafeMutableRawPointer, body: UnsafeMutablePointer<Body>,
        completion: @escaping (Result<Data, CurlFailure>) -> Void
    ) {
        self.handle = handle
        self.body = body
        self.completion = completion
    }
}

/// A handle's body buffer, kept from request to request as `raw_multi.c` keeps its own.
struct Body {
    var bytes: UnsafeMutableRawPointer?
    var count = 0
    var capacity = 0
}

/// A transfer that failed, or answered other than 200.
struct CurlFailure: Error {
    let code: CURLcode
    let status: Int
}

/// The loop of `Benchmarks/C/one_thread.h`, with each finished request's body handed to a
/// closure as `Data`. One thread only: the awaiting tasks run on it too (`@unchecked Sendable`
/// for them, which the compiler cannot tell).
final class Client: @unchecked Sendable {
    let url: String
    let multi: UnsafeMutableRawPointer
    /// Idle handles, each with its body buffer.
    var idle: [(handle: UnsafeMutableRawPointer, body: UnsafeMutablePointer<Body>)] = []
    var started = 0, finished = 0, failures = 0, total = 0

    init(url: String, inflight: Int) {
        self.url = url
        multi = curl_multi_init()
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, inflight)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(inflight, 16))
        for _ in 0..<inflight {
            let body = UnsafeMutablePointer<Body>.allocate(capacity: 1)
            body.initialize(to: Body())
            idle.append((curl_easy_init()!, body))
        }
    }

    /// Runs `total` requests, as many in flight as there are handles; returns the failures.
    func run(total: Int) -> Int {
        (started, finished, failures, self.total) = (0, 0, 0, total)
        for _ in 0..<min(idle.count, total) { startNext() }
        while finished < total {
            perform()
            if finished < total { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        return failures
    }

    /// Runs libcurl, and hands each finished request's outcome to its completion.
    func perform() {
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var pointer: UnsafeMutableRawPointer?
            ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
            let exchange = Unmanaged<Exchange>.fromOpaque(pointer!).takeRetainedValue()
            var status = 0
            ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            curl_multi_remove_handle(multi, easy)
            idle.append((exchange.handle, exchange.body))
            let code = message.pointee.data.result
            if code == CURLE_OK, status == 200 {
                exchange.completion(
                    .success(Data(bytes: exchange.body.pointee.bytes!, count: exchange.body.pointee.count)))
            } else {
                exchange.completion(.failure(CurlFailure(code: code, status: status)))
            }
        }
    }

    /// Runs `total` requests awaited from `tasks` tasks, each awaiting its share one after
    /// another; the loop's thread runs the tasks between its passes (``LoopThreadExecutor``).
    func runAwaited(total: Int, tasks: Int) -> Int {
        (started, finished, failures, self.total) = (0, 0, 0, total)
        let executor = LoopThreadExecutor()
        for index in 0..<tasks {
            let share = total / tasks + (index < total % tasks ? 1 : 0)
            Task(executorPreference: executor) { [self] in
                for _ in 0..<share {
                    if case .failure = await get() { failures += 1 }
                }
            }
        }
        executor.runJobs()
        while finished < total {
            perform()
            executor.runJobs()
            if finished < total { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        return failures
    }

    /// Runs `total` requests awaited from `tasks` tasks that prefer no executor: each request
    /// prefers the loop's thread (``SharedLoopExecutor``) only while it waits, so that its task
    /// comes onto the loop's thread to start it and goes back to Swift's pool after.
    func runAwaitedPerRequest(total: Int, tasks: Int) -> Int {
        (started, finished, failures, self.total) = (0, 0, 0, total)
        let executor = SharedLoopExecutor(multi: multi)
        for index in 0..<tasks {
            let share = total / tasks + (index < total % tasks ? 1 : 0)
            Task { [self] in
                for _ in 0..<share {
                    await withTaskExecutorPreference(executor) {
                        // On the loop's thread: the preference's executor runs this.
                        await withUnsafeContinuation { continuation in
                            start { [self] result in
                                finished += 1
                                if case .failure = result { failures += 1 }
                                continuation.resume()
                            }
                        }
                    }
                }
            }
        }
        while finished < total {
            executor.runJobs()
            perform()
            executor.runJobs()
            // A job queued from the pool after this look wakes the poll (curl_multi_wakeup).
            if finished < total && !executor.hasJobs { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        return failures
    }

    /// Starts a GET and suspends the calling task until its response has come.
    func get() async -> Result<Data, CurlFailure> {
        await withUnsafeContinuation { continuation in
            start { [self] result in
                finished += 1
                continuation.resume(returning: result)
            }
        }
    }

    /// Starts the next of the run's requests, whose completion starts the one after.
    func startNext() {
        guard started < total else { return }
        started += 1
        start { [self] result in
            finished += 1
            if case .failure = result { failures += 1 }
            startNext()
        }
    }

    /// Starts a GET on an idle handle, the handle reset and given `raw_multi.c`'s options; its
    /// response goes to `completion`.
    func start(_ completion: @escaping (Result<Data, CurlFailure>) -> Void) {
        guard let (handle, body) = idle.popLast() else { return }
        let exchange = Exchange(handle: handle, body: body, completion: completion)
        body.pointee.count = 0
        curl_easy_reset(handle)
        ccurl_easy_setopt_string(handle, CURLOPT_URL, url)
        ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        ccurl_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, receiveBody)
        ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, body)
        ccurl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, Unmanaged.passRetained(exchange).toOpaque())
        curl_multi_add_handle(multi, handle)
    }
}

/// The loop's thread as the awaiting tasks' executor: a task resumed by a response is queued
/// here, and runs on the loop's thread when the loop next calls ``runJobs()``.
/// `@unchecked Sendable`: only the loop's thread enqueues (it makes the tasks and resumes their
/// continuations) and runs the jobs.
final class LoopThreadExecutor: TaskExecutor, @unchecked Sendable {
    private var jobs: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.append(UnownedJob(job))
    }

    /// Runs the queued jobs, and those they queue, until none is left.
    func runJobs() {
        var index = 0
        while index < jobs.count {
            let job = jobs[index]
            index += 1
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        jobs.removeAll(keepingCapacity: true)
    }
}

/// The loop's thread as the executor a task prefers while it waits for a response: jobs come
/// from Swift's pool (a task entering its preference) and from the loop's thread (a response
/// resuming its task); one from another thread wakes the loop's poll. The loop's thread runs
/// them between its passes, as Swift's pool would (preferring no executor), as Connect's
/// completion drain does: a task whose preference ends goes on where it is, on the loop's
/// thread, and its next request's hop into the preference is a job here too. Three jobs a
/// request, none on the pool once the tasks are going. `@unchecked Sendable`: the queue is
/// behind its mutex, and the multi handle is only woken from other threads
/// (`curl_multi_wakeup` is safe from any thread).
final class SharedLoopExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let multi: UnsafeMutableRawPointer
    private let loopThread = pthread_self()

    init(multi: UnsafeMutableRawPointer) {
        self.multi = multi
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        if pthread_equal(pthread_self(), loopThread) == 0 { curl_multi_wakeup(multi) }
    }

    /// Whether a job waits.
    var hasJobs: Bool { jobs.withLock { !$0.isEmpty } }

    /// Runs the queued jobs, and those they queue, until none is left.
    func runJobs() {
        while true {
            let batch = jobs.withLock { queued in
                let batch = queued
                queued.removeAll(keepingCapacity: true)
                return batch
            }
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor()) }
        }
    }
}

/// libcurl's write callback: appends to the handle's body buffer.
private func receiveBody(
    _ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let body = context!.assumingMemoryBound(to: Body.self)
    let length = size * count
    if body.pointee.count + length > body.pointee.capacity {
        body.pointee.capacity = (body.pointee.count + length) * 2
        body.pointee.bytes = realloc(body.pointee.bytes, body.pointee.capacity)
    }
    memcpy(body.pointee.bytes! + body.pointee.count, bytes!, length)
    body.pointee.count += length
    return length
}
