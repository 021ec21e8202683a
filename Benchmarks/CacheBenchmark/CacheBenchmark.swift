import BenchmarkReport
import CCurlFloor
import Connect
import ConnectTestServer
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `make bench-cache`: what the HTTP cache costs and saves, against a server in a process of its
/// own (`CacheBenchmark serve` prints its port; `CacheBenchmark PORT` measures), so that the
/// client's CPU is counted apart from the server's.
///
/// - A fresh hit: `await connect.send(request).value` answered from a ``ResponseCache`` in
///   memory, in CPU microseconds per request, with the TCP segments the machine sent meanwhile
///   (Linux's `/proc/net/snmp`; none of them the client's when no request touched the network).
/// - One request at a time over the network, in microseconds each, wall time and the client's
///   CPU: a revalidation that ends in a 304 (`Cache-Control: no-cache` and an `ETag`), the same
///   request without a cache, the conditional request the revalidation sends (and its 304)
///   without a cache, which parts the protocol's cost from the cache's, and raw libcurl's easy
///   interface on one handle.
/// - The memory: 20,000 responses of 1 KiB through a cache of 4 MiB.
///
/// In each round the four network clients take turns in blocks of 200 requests; each cell is the
/// range over the rounds.
@main
struct CacheBenchmark {
    static let body = Data(String(repeating: #"{"id":1,"title":"a to-do"},"#, count: 38).utf8)

    static func main() async throws {
        // Off the main actor, as a server's tasks run: a task on the main actor would be handed
        // back to the main thread after every await.
        try await run(Array(CommandLine.arguments.dropFirst()))
    }

    static func run(_ arguments: [String]) async throws {
        if arguments.first == "serve" {
            let seen = Atomic<Int>(0)
            let server = try TestServer { request in
                // How many requests came before this one: the client reads it around its hits.
                let count = seen.add(1, ordering: .relaxed).oldValue
                switch request.path {
                case "/count":
                    return TestResponse(body: Data(String(count).utf8))
                case "/validated":
                    if request.header("If-None-Match") == "\"v1\"" {
                        return TestResponse(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")])
                    }
                    return TestResponse(headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")], body: body)
                case "/plain":
                    return TestResponse(headers: [("Content-Type", "application/json")], body: body)
                default:
                    return TestResponse(headers: [("Cache-Control", "max-age=86400")], body: body)
                }
            }
            // Written at once, not buffered: the script reads it from a pipe.
            FileHandle.standardOutput.write(Data("\(server.baseURL.port!)\n".utf8))
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        guard let port = arguments.first.flatMap(Int.init) else {
            print("usage: CacheBenchmark serve | CacheBenchmark PORT [hits|revalidations|conditional|requests N]")
            exit(2)
        }
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 5
        var configuration = ConnectConfiguration()
        configuration.cache = ResponseCache(memoryCapacity: 64 << 20)
        let cached = Connect(configuration: configuration)
        // Without a cache; a 304 (to the conditional request below) is an answer, not a failure.
        var uncachedConfiguration = ConnectConfiguration()
        uncachedConfiguration.acceptedStatusCodes = .successful + [304]
        let plain = Connect(configuration: uncachedConfiguration)
        let fresh = Request(url: base.appendingPathComponent("fresh"))
        let validated = Request(url: base.appendingPathComponent("validated"))
        let uncached = Request(url: base.appendingPathComponent("plain"))
        // What a revalidation sends, sent without a cache: the protocol's share of its cost.
        let conditional = Request(
            url: validated.url, headers: [HTTPHeader(name: "If-None-Match", value: "\"v1\"")])
        // Stored, and the connections open.
        _ = try await cached.send(fresh).value
        _ = try await cached.send(validated).value
        _ = try await plain.send(uncached).value
        let notModified = try await plain.send(conditional).value
        precondition(notModified.statusCode == 304)
        let raw = RawClient(url: uncached.url.absoluteString)
        _ = raw.run(10)
        // `CacheBenchmark PORT hits|revalidations|conditional|requests N`: only those, for a profiler.
        if arguments.count > 2, let count = Int(arguments[2]) {
            let (client, request) =
                switch arguments[1] {
                case "hits": (cached, fresh)
                case "revalidations": (cached, validated)
                case "conditional": (plain, conditional)
                default: (plain, uncached)
                }
            for _ in 0..<count { _ = try await client.send(request).value }
            return
        }
        // The same hits from a task that prefers the client's serial callback queue (see
        // CallbackQueueExecutor): the hand-over from the queue to Swift's pool is gone.
        var serial = configuration
        serial.callbackQueue = DispatchQueue(label: "cache-benchmark")
        let onQueue = Connect(configuration: serial)
        _ = try await onQueue.send(fresh).value

        var hitCPU: [Double] = [], queueHitCPU: [Double] = [], segments: [Double] = [], serverSaw: [Double] = []
        var revalidation: [Double] = [], request: [Double] = [], rawRequest: [Double] = []
        var revalidationCPU: [Double] = [], requestCPU: [Double] = [], rawCPU: [Double] = []
        var conditionalRequest: [Double] = [], conditionalCPU: [Double] = []
        let hits = 100_000, sequential = 2_000, blocks = 10
        let revalidate: @Sendable () async throws -> Void = {
            let response = try await cached.send(validated).value
            precondition(response.cacheStatus == .revalidated)
        }
        let fetch: @Sendable () async throws -> Void = { _ = try await plain.send(uncached).value }
        let fetchConditionally: @Sendable () async throws -> Void = { _ = try await plain.send(conditional).value }
        let fetchRaw: @Sendable () async throws -> Void = { precondition(raw.run(1) == 1) }
        /// The requests the server has seen so far, not counting this one.
        func requestsSeen() async throws -> Int {
            Int(
                String(
                    decoding: try await plain.send(Request(url: base.appendingPathComponent("count"))).value.body,
                    as: UTF8.self))!
        }
        for _ in 0..<rounds {
            let seenBefore = try await requestsSeen()
            let sent = tcpSegmentsSent()
            var cpu = BenchmarkReport.cpuSeconds()
            for _ in 0..<hits {
                let response = try await cached.send(fresh).value
                precondition(response.cacheStatus == .hit)
            }
            hitCPU.append((BenchmarkReport.cpuSeconds() - cpu) / Double(hits) * 1e6)
            segments.append(Double(tcpSegmentsSent().map { $0 - (sent ?? 0) } ?? -1))
            // The count request itself is one.
            serverSaw.append(Double(try await requestsSeen() - seenBefore - 1))
            cpu = BenchmarkReport.cpuSeconds()
            try await withTaskExecutorPreference(onQueue.callbackExecutor) {
                for _ in 0..<hits { _ = try await onQueue.send(fresh).value }
            }
            queueHitCPU.append((BenchmarkReport.cpuSeconds() - cpu) / Double(hits) * 1e6)

            // The four clients take turns in blocks, so that the machine's drift within a round
            // falls on each alike; a round's figure is the mean over its blocks.
            var sums = [(wall: Double, cpu: Double)](repeating: (0, 0), count: 4)
            for _ in 0..<blocks {
                for (slot, block) in [revalidate, fetch, fetchConditionally, fetchRaw].enumerated() {
                    let (wall, perCPU) = try await perRequest(sequential / blocks, block)
                    sums[slot].wall += wall / Double(blocks)
                    sums[slot].cpu += perCPU / Double(blocks)
                }
            }
            revalidation.append(sums[0].wall)
            revalidationCPU.append(sums[0].cpu)
            request.append(sums[1].wall)
            requestCPU.append(sums[1].cpu)
            conditionalRequest.append(sums[2].wall)
            conditionalCPU.append(sums[2].cpu)
            rawRequest.append(sums[3].wall)
            rawCPU.append(sums[3].cpu)
        }
        func ratios(_ a: [Double], _ b: [Double]) -> String { range(zip(a, b).map { $0 / $1 }, "x", decimals: 2) }
        print("| measure | wall | client CPU |")
        print("| --- | ---: | ---: |")
        print("| fresh hit (`try await connect.send(request).value`) | | \(range(hitCPU, "µs")) |")
        print("| the same from a task that prefers the serial callback queue | | \(range(queueHitCPU, "µs")) |")
        print("| requests the server saw during \(hits) hits | \(range(serverSaw, "", decimals: 0)) | |")
        print("| TCP segments the machine sent during them | \(range(segments, "", decimals: 0)) | |")
        print("| revalidation (304), one at a time | \(range(revalidation, "µs")) | \(range(revalidationCPU, "µs")) |")
        print("| the same request without a cache | \(range(request, "µs")) | \(range(requestCPU, "µs")) |")
        print(
            "| the revalidation's request (`If-None-Match`, a 304) without a cache | \(range(conditionalRequest, "µs")) | \(range(conditionalCPU, "µs")) |"
        )
        print(
            "| raw libcurl (easy interface), the same request | \(range(rawRequest, "µs")) | \(range(rawCPU, "µs")) |")
        print("| revalidation ÷ request | \(ratios(revalidation, request)) | \(ratios(revalidationCPU, requestCPU)) |")
        print(
            "| revalidation ÷ its request without a cache | \(ratios(revalidation, conditionalRequest)) | \(ratios(revalidationCPU, conditionalCPU)) |"
        )
        print("| request ÷ raw libcurl | \(ratios(request, rawRequest)) | \(ratios(requestCPU, rawCPU)) |")

        // The memory: many more responses than the capacity holds.
        let capacity = 4 << 20
        var small = ConnectConfiguration()
        let cache = ResponseCache(memoryCapacity: capacity)
        small.cache = cache
        let bounded = Connect(configuration: small)
        let before = residentBytes()
        var largest = 0
        for index in 0..<20_000 {
            _ = try await bounded.send(Request(url: base.appendingPathComponent("fresh/\(index)"))).value
            largest = max(largest, cache.byteCount)
        }
        let grown = residentBytes().map { ($0 - (before ?? 0)) >> 20 }
        print("| 20,000 responses of 1 KiB through a 4 MiB cache: the most it held | \(largest >> 10) KiB | |")
        print("| the client's resident memory grown meanwhile | \(grown.map { "\($0) MiB" } ?? "n/a") | |")
    }

    /// Microseconds per call of `body`: wall time, and the process's CPU.
    static func perRequest(_ count: Int, _ body: @Sendable () async throws -> Void) async throws -> (Double, Double) {
        let started = ContinuousClock.now
        let cpu = BenchmarkReport.cpuSeconds()
        for _ in 0..<count { try await body() }
        return (
            microseconds(ContinuousClock.now - started) / Double(count),
            (BenchmarkReport.cpuSeconds() - cpu) / Double(count) * 1e6
        )
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    static func range(_ values: [Double], _ unit: String, decimals: Int = 1) -> String {
        let low = String(format: "%.\(decimals)f", values.min() ?? 0)
        let high = String(format: "%.\(decimals)f", values.max() ?? 0)
        let space = unit.isEmpty || unit == "x" ? "" : " "
        return (low == high ? low : "\(low)–\(high)") + space + unit
    }

    /// TCP segments the machine has sent (Linux); `nil` elsewhere.
    static func tcpSegmentsSent() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) else { return nil }
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("Tcp:") }.map { $0.split(separator: " ") }
        guard rows.count == 2, let column = rows[0].firstIndex(of: "OutSegs") else { return nil }
        return Int(rows[1][column])
    }

    /// The process's resident memory (Linux); `nil` elsewhere.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// libcurl's easy interface on one handle, one request after another: the least a request costs.
/// `@unchecked Sendable`: the benchmark uses it from one task, one request at a time.
final class RawClient: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    init(url: String) {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        handle = curl_easy_init()
        ccurl_easy_setopt_string(handle, CURLOPT_URL, url)
        ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, discardBody)
    }

    /// Sends `count` requests; returns how many were answered with 200.
    func run(_ count: Int) -> Int {
        var answered = 0
        for _ in 0..<count {
            var status = 0
            if curl_easy_perform(handle) == CURLE_OK,
                ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
                status == 200
            {
                answered += 1
            }
        }
        return answered
    }
}

private func discardBody(
    _ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    size * count
}
