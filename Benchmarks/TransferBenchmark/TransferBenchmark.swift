import Connect
import ConnectFutures
import Foundation

/// Downloads or uploads one large file through Connect, or reads an event stream, and reports
/// speed and memory.
/// usage: TransferBenchmark download URL DESTINATION | upload URL FILE | upload-stream URL BYTES
///        | events URL COUNT [slow]
/// Prints: bytes (events), seconds, MB/s (events/s), idle RSS MiB, peak RSS MiB, peak above idle MiB.
@main
struct TransferBenchmark {
    struct Endpoint: Connector {
        let baseURL: URL
        var endpoint: String { "" }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)? { nil }
        var method: HTTPMethod
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let url = URL(string: arguments[2]) else {
            FileHandle.standardError.write(
                Data("usage: TransferBenchmark download|upload URL PATH, or events URL COUNT [slow]\n".utf8))
            exit(2)
        }
        let path = URL(fileURLWithPath: arguments[3])
        var configuration = ConnectConfiguration()
        configuration.timeout = .seconds(600)
        let connect = Connect(configuration: configuration)
        // Idle: the client made and one request done, so its thread, handles and buffers exist.
        _ = try? await connect.response(Endpoint(baseURL: url, method: .head)).value
        let idle = memory("VmRSS")

        let start = ContinuousClock.now
        let bytes: Int64
        switch arguments[1] {
        case "download":
            let file = try await connect.download(Endpoint(baseURL: url, method: .get), to: path).value
            bytes = Int64(
                (try FileManager.default.attributesOfItem(atPath: file.location.path)[.size] as? NSNumber)?.int64Value
                    ?? 0)
        case "upload":
            bytes = Int64(
                (try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? NSNumber)?.int64Value ?? 0)
            _ = try await connect.upload(fileAt: path, to: Endpoint(baseURL: url, method: .put)).value
        case "upload-stream":
            // A body generated as it is sent, of a length not declared: it goes out chunked, and
            // memory must stay flat however large it is.
            bytes = Int64(arguments[3]) ?? 0
            let body = RequestBody.stream(GeneratedBody(total: bytes))
            _ = try await connect.send(Request(method: .put, url: url, body: body)).value
        case "events":
            // A slow consumer pauses a millisecond every 100 events, so the buffer fills and the
            // transfer pauses; memory must stay flat either way.
            let slow = arguments.count > 4 && arguments[4] == "slow"
            var count: Int64 = 0
            for try await event in connect.events(Endpoint(baseURL: url, method: .get), reconnection: .never) {
                count += 1
                if slow, count % 100 == 0 { try await Task.sleep(for: .milliseconds(1)) }
                precondition(event.id == String(count), "event \(count) came as \(event.id ?? "nil")")
            }
            guard count == Int64(arguments[3]) else {
                FileHandle.standardError.write(Data("expected \(arguments[3]) events, got \(count)\n".utf8))
                exit(1)
            }
            bytes = count
        default:
            exit(2)
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let peak = memory("VmHWM")
        let rate = arguments[1] == "events" ? Double(bytes) / seconds : Double(bytes) / seconds / 1e6
        print(String(format: "%lld %.3f %.1f %.1f %.1f %.1f", bytes, seconds, rate, idle, peak, peak - idle))
    }

    /// `total` zero bytes in chunks of 64 KiB, made as they are asked for.
    struct GeneratedBody: AsyncSequence, Sendable {
        let total: Int64

        func makeAsyncIterator() -> Iterator { Iterator(remaining: total) }

        struct Iterator: AsyncIteratorProtocol {
            var remaining: Int64
            let chunk = Data(count: 64 << 10)

            mutating func next() async -> Data? {
                guard remaining > 0 else { return nil }
                let count = Int(Swift.min(remaining, Int64(chunk.count)))
                remaining -= Int64(count)
                return count == chunk.count ? chunk : chunk.prefix(count)
            }
        }
    }

    /// A line of /proc/self/status, in MiB.
    static func memory(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}
