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
/// usage: SwiftFloor URL TOTAL INFLIGHT
/// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
@main
struct SwiftFloor {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let total = Int(arguments[2]), let inflight = Int(arguments[3]), inflight > 0 else {
            let usage = "usage: SwiftFloor URL TOTAL INFLIGHT\n"
            _ = write(2, usage, usage.utf8.count)
            exit(2)
        }
        curl_global_init(Int(CURL_GLOBAL_ALL))
        let client = Client(url: arguments[1], inflight: inflight)
        // The warm-up opens the connections once, as the other clients' does.
        BenchmarkReport.measure(total: total, warmUp: min(total, inflight * 4)) { client.run(total: $0) }
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
/// closure as `Data`. One thread only.
final class Client {
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
        var running: Int32 = 0
        while finished < total {
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
            if finished < total { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        return failures
    }

    /// Starts a request on an idle handle: the handle reset and given `raw_multi.c`'s options.
    func startNext() {
        guard started < total, let (handle, body) = idle.popLast() else { return }
        started += 1
        let exchange = Exchange(handle: handle, body: body) { [self] result in
            finished += 1
            if case .failure = result { failures += 1 }
            startNext()
        }
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
