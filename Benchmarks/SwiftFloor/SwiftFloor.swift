import BenchmarkReport
import CCurlFloor
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
/// usage: SwiftFloor URL TOTAL INFLIGHT [await]
/// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
@main
struct SwiftFloor {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let total = Int(arguments[2]), let inflight = Int(arguments[3]), inflight > 0 else {
            let usage = "usage: SwiftFloor URL TOTAL INFLIGHT [await]\n"
            _ = write(2, usage, usage.utf8.count)
            exit(2)
        }
        curl_global_init(Int(CURL_GLOBAL_ALL))
        let client = Client(url: arguments[1], inflight: inflight)
        let awaits = arguments.count > 4 && arguments[4] == "await"
        // The warm-up opens the connections once, as the other clients' does.
        BenchmarkReport.measure(total: total, warmUp: min(total, inflight * 4)) {
            awaits ? client.runAwaited(total: $0, tasks: inflight) : client.run(total: $0)
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
