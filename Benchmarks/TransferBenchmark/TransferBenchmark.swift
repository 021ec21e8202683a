import Connect
import ConnectFutures
import Foundation

/// Downloads or uploads one large file through Connect and reports speed and memory.
/// usage: TransferBenchmark download URL DESTINATION | TransferBenchmark upload URL FILE
/// Prints: bytes, seconds, MB/s, idle RSS MiB, peak RSS MiB, peak above idle MiB.
@main
struct TransferBenchmark {
    struct Endpoint: Connector {
        let baseURL: URL
        var endpoint: String { "" }
        var method: HTTPMethod
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let url = URL(string: arguments[2]) else {
            FileHandle.standardError.write(Data("usage: TransferBenchmark download|upload URL PATH\n".utf8))
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
            bytes = Int64((try FileManager.default.attributesOfItem(atPath: file.location.path)[.size] as? NSNumber)?.int64Value ?? 0)
        case "upload":
            bytes = Int64((try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? NSNumber)?.int64Value ?? 0)
            _ = try await connect.upload(fileAt: path, to: Endpoint(baseURL: url, method: .put)).value
        default:
            exit(2)
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let peak = memory("VmHWM")
        print(String(format: "%lld %.3f %.1f %.1f %.1f %.1f", bytes, seconds, Double(bytes) / seconds / 1e6, idle, peak, peak - idle))
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
