import BenchmarkReport
import Connect
import ConnectFutures
import Dispatch
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
import Synchronization

/// The same GETs as `Benchmarks/C/raw_multi.c`, through Connect; with `post`, POSTs of a 1 KiB
/// JSON body from `Parameter.jsonObject`, the way users send them; with `post-writable`, the same
/// POSTs from values that write their own JSON (`JSONWritable`); with `post-bytes`, the same
/// bytes encoded once, sent as a built `Request` through `connect.send(_:)` (a POST without
/// its encoding, what the C clients send); with `file`, downloads to
/// files in BENCH_DIR (each removed once it is complete); with `h2c`, HTTP/2 with prior knowledge;
/// with `https`, trusting the CA file in BENCH_CA; with `await`, the same GETs from INFLIGHT tasks
/// that each await one response after another (`try await connect.request(...).value`); with
/// `await-executor`, the same tasks preferring `connect.callbackExecutor`, on a serial callback
/// queue; with `transport`, the same GETs as one `Request` built once and handed straight to a
/// `CurlTransport` (no request building, no exchange: what Connect's transport costs alone).
/// With BENCH_CALLBACKS=transfer-thread in the environment, the client runs its callbacks on
/// the transfer thread (`runsCallbacksOnTransferThread`).
/// usage: HTTPBenchmark URL TOTAL INFLIGHT [post|post-writable|post-bytes|file|h2c|https|h3|await|await-post|await-h2c|await-executor|transport]
/// Prints: requests, seconds, requests/s, CPU microseconds per request, failures.
///
/// It imports FoundationEssentials rather than Foundation where it can, as Connect does, so that
/// `make bench-memory` measures what a small client of Connect holds.
@main
struct HTTPBenchmark {
    struct Endpoint: Connector {
        /// What the requests send.
        enum Body {
            case none
            /// The document's items through `Codable`.
            case encodable
            /// The same items writing their own JSON.
            case writable
        }

        let baseURL: URL
        let body: Body
        var endpoint: String { "" }
        var method: HTTPMethod { body == .none ? .get : .post }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)? {
            switch body {
            case .none: nil
            case .encodable: Parameter.jsonObject(value: Self.document)
            case .writable: Parameter.jsonObject(value: Self.writableDocument)
            }
        }

        /// 22 to-do items: 1 KiB of JSON.
        static let document = (0..<22).map {
            Item(id: $0, title: "todo " + zeroPadded($0, width: 3), done: $0 % 2 == 0)
        }
        static let writableDocument = document.map { WritableItem(id: $0.id, title: $0.title, done: $0.done) }
    }

    struct Item: Encodable, Sendable {
        let id: Int
        let title: String
        let done: Bool
    }

    /// `Item` with a hand-written `JSONWritable` conformance: the same bytes, without `Codable`.
    struct WritableItem: Encodable, JSONWritable, Sendable {
        let id: Int
        let title: String
        let done: Bool

        func write(to json: inout JSONWriter) {
            json.writeObject { json in
                json.write(id, forKey: "id")
                json.write(title, forKey: "title")
                json.write(done, forKey: "done")
            }
        }
    }

    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let url = URL(string: arguments[1]), let total = Int(arguments[2]),
            let inflight = Int(arguments[3])
        else {
            let usage =
                "usage: HTTPBenchmark URL TOTAL INFLIGHT [post|post-writable|post-bytes|file|h2c|https|h3|await|await-executor|transport]\n"
            _ = write(2, usage, usage.utf8.count)
            exit(2)
        }
        var configuration = ConnectConfiguration()
        // BENCH_IDLE=N with BENCH_IDLE_URL: N requests to a server that never answers stay in
        // flight the whole run, as long polls and event streams do beside an app's requests.
        let environment = ProcessInfo.processInfo.environment
        let idle = Int(environment["BENCH_IDLE"] ?? "") ?? 0
        configuration.maximumConnectionsPerHost = max(inflight, idle)
        configuration.maximumResponseBodySize = 1 << 30  // the 64 MiB bodies of the large-body rows
        let mode = arguments.count > 4 ? arguments[4] : "get"
        if mode == "h2c" || mode == "await-h2c" { configuration.httpVersion = .http2WithPriorKnowledge }
        if mode == "https" || mode == "h3", let ca = ProcessInfo.processInfo.environment["BENCH_CA"] {
            configuration.tls.trustedCertificates = URL(fileURLWithPath: ca)
        }
        if mode == "h3" { configuration.httpVersion = .http3Only }
        configuration.runsCallbacksOnTransferThread =
            ProcessInfo.processInfo.environment["BENCH_CALLBACKS"] == "transfer-thread"
        if mode == "await-executor" { configuration.callbackQueue = DispatchQueue(label: "HTTPBenchmark.callbacks") }
        let connect = Connect(configuration: configuration)
        if idle > 0, let idleURL = environment["BENCH_IDLE_URL"].flatMap({ URL(string: $0) }) {
            for _ in 0..<idle { _ = connect.send(Request(url: idleURL, timeout: .seconds(3600))) }
        }
        let endpoint = Endpoint(
            baseURL: url,
            body: mode == "post" || mode == "await-post" ? .encodable : mode == "post-writable" ? .writable : .none)
        let folder =
            mode == "file"
            ? (ProcessInfo.processInfo.environment["BENCH_DIR"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.temporaryDirectory) : nil
        // The bytes Connect's own GETs put on the wire: its User-Agent, the transport's Accept-Encoding.
        let prebuilt =
            mode == "post-bytes"
            ? Request(method: .post, url: url, body: try? RequestBody.json(Endpoint.writableDocument)) : nil
        let direct =
            mode == "transport"
            ? (
                transport: CurlTransport(configuration: configuration),
                request: Request(url: url, headers: [.userAgent("Connect/0.1")])
            ) : nil

        let requests =
            mode.hasPrefix("await")
            ? { (total: Int) in
                runAwaiting(
                    connect, endpoint, total: total, inflight: inflight, onCallbackQueue: mode == "await-executor")
            }
            : { (total: Int) in
                run(
                    connect, endpoint, total: total, inflight: inflight, folder: folder, direct: direct,
                    prebuilt: prebuilt)
            }
        BenchmarkReport.measure(total: total, warmUp: min(total, inflight * 4), requests)
    }

    /// Keeps `inflight` requests going until `total` have finished; returns the failures. With a
    /// `folder`, each body is downloaded to a file there (removed once complete); with `direct`,
    /// its request is sent through its transport instead; with `prebuilt`, that request is sent
    /// through `connect.send(_:)`.
    @discardableResult
    static func run(
        _ connect: Connect, _ endpoint: Endpoint, total: Int, inflight: Int, folder: URL? = nil,
        direct: (transport: CurlTransport, request: Request)? = nil, prebuilt: Request? = nil
    ) -> Int {
        let driver = Driver(
            connect: connect, endpoint: endpoint, total: total, folder: folder, direct: direct, prebuilt: prebuilt)
        for _ in 0..<min(inflight, total) { driver.startNext() }
        driver.done.wait()
        return driver.state.withLock { $0.failures }
    }

    /// The state of one `run`: each request's callback holds the driver alone, as an application
    /// holds the one object it answers to, so that what the benchmark measures is Connect rather
    /// than a closure context that copies every setting of the run for each request.
    final class Driver: Sendable {
        let connect: Connect
        let endpoint: Endpoint
        let total: Int
        let folder: URL?
        let direct: (transport: CurlTransport, request: Request)?
        /// A request built once, sent through `connect.send(_:)`.
        let prebuilt: Request?
        let state = Guarded((started: 0, finished: 0, failures: 0))
        let done = DispatchSemaphore(value: 0)

        init(
            connect: Connect, endpoint: Endpoint, total: Int, folder: URL?,
            direct: (transport: CurlTransport, request: Request)?, prebuilt: Request?
        ) {
            self.connect = connect
            self.endpoint = endpoint
            self.total = total
            self.folder = folder
            self.direct = direct
            self.prebuilt = prebuilt
        }

        /// Starts the next request, unless `total` have been started.
        func startNext() {
            let shouldStart = state.withLock { state -> Bool in
                guard state.started < total else { return false }
                state.started += 1
                return true
            }
            guard shouldStart else { return }
            if let folder {
                download(connect, endpoint, into: folder).observe { [self] result in
                    if case .success(let file) = result { try? FileManager.default.removeItem(at: file.location) }
                    finish(failed: isFailure(result))
                }
            } else if let prebuilt {
                connect.send(prebuilt).observe { [self] result in
                    finish(failed: isFailure(result))
                }
            } else if let direct {
                direct.transport.send(direct.request).observe { [self] result in
                    finish(failed: isFailure(result))
                }
            } else {
                connect.request(endpoint).observe { [self] result in
                    finish(failed: isFailure(result))
                }
            }
        }

        /// Counts a finished request, then starts the next, or signals `done` after the last.
        func finish(failed: Bool) {
            let finishedAll = state.withLock { state -> Bool in
                state.finished += 1
                if failed { state.failures += 1 }
                return state.finished == total
            }
            if finishedAll { done.signal() } else { startNext() }
        }
    }

    /// Whether a request's result is a failure, for the counts `run` keeps.
    @inline(__always)
    static func isFailure<Value>(_ result: Result<Value, any Error>) -> Bool {
        if case .failure = result { return true } else { return false }
    }

    /// `total` GETs from `inflight` tasks, each awaiting one response after another, preferring
    /// `connect.callbackExecutor` when `onCallbackQueue`; returns the failures.
    static func runAwaiting(
        _ connect: Connect, _ endpoint: Endpoint, total: Int, inflight: Int, onCallbackQueue: Bool
    ) -> Int {
        let started = Guarded(0)
        let failures = Guarded(0)
        let done = DispatchSemaphore(value: 0)
        let executor: CallbackQueueExecutor? = onCallbackQueue ? connect.callbackExecutor : nil
        Task(executorPreference: executor) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<min(inflight, total) {
                    group.addTask(executorPreference: executor) {
                        while started.withLock({ count -> Bool in
                            guard count < total else { return false }
                            count += 1
                            return true
                        }) {
                            do {
                                _ = try await connect.request(endpoint).value
                            } catch {
                                failures.withLock { $0 += 1 }
                            }
                        }
                    }
                }
            }
            done.signal()
        }
        done.wait()
        return failures.withLock { $0 }
    }

    static let downloads = Guarded(0)

    /// A download into a file of its own in `folder`.
    static func download(_ connect: Connect, _ endpoint: Endpoint, into folder: URL) -> Future<DownloadedFile> {
        let number = downloads.withLock { count -> Int in
            count += 1
            return count
        }
        return connect.download(endpoint, to: folder.appendingPathComponent("s-\(number).bin"))
    }

    /// `number` in decimal with leading zeros to `width` digits, as `%03d` prints it.
    static func zeroPadded(_ number: Int, width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(width - digits.count, 0)) + digits
    }
}

/// A small lock for the benchmark's counters.
final class Guarded<State: Sendable>: Sendable {
    private let state: Mutex<State>

    init(_ state: State) { self.state = Mutex(state) }

    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { body(&$0) }
    }
}
