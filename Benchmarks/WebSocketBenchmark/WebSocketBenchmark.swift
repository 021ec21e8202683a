import Connect
import ConnectTestServer
import Foundation

/// WebSockets through Connect against SwiftNIO's WebSocket server (``WebSocketServer``, run in
/// a process of its own by `Benchmarks/websockets` so that its memory is not counted):
///
/// - `serve`: starts the server, prints its port, and runs until killed;
/// - `idle URL COUNT`: opens COUNT sockets and keeps them open; prints
///   `idle <count> <rss before MiB> <rss after MiB> <KiB per socket>`;
/// - `echo URL COUNT`: COUNT round trips of a 32-byte text message, one after another; prints
///   `echo <count> <seconds> <round trips/s>`;
/// - `flood URL COUNT BYTES`: the server sends COUNT binary messages of BYTES each, read as fast
///   as they come; prints `flood <count> <bytes> <seconds> <messages/s> <MB/s>`;
/// - `flood-text URL COUNT BYTES`: the same with text messages of ASCII letters, each checked
///   as UTF-8 on the way in.
@main
struct WebSocketBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "serve":
            let server = try WebSocketServer()
            // Written at once, not buffered: the script reads it from a pipe.
            FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
            while true { try await Task.sleep(for: .seconds(3600)) }
        case "idle":
            try await idle(url: URL(string: arguments[1])!, count: Int(arguments[2])!)
        case "echo":
            try await echo(url: URL(string: arguments[1])!, count: Int(arguments[2])!)
        case "flood", "flood-text":
            try await flood(
                url: URL(string: arguments[1])!, count: Int(arguments[2])!, bytes: Int(arguments[3])!,
                text: arguments[0] == "flood-text")
        default:
            print(
                "usage: WebSocketBenchmark serve | idle URL COUNT | echo URL COUNT | flood URL COUNT BYTES | flood-text URL COUNT BYTES"
            )
            exit(2)
        }
    }

    struct Endpoint: Connector {
        var baseURL: URL
        var endpoint: String { "/bench" }
        var method: HTTPMethod { .get }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)? { nil }
    }

    /// Resident memory in MiB, from /proc/self/status.
    static func residentMiB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return kilobytes / 1024
    }

    static func idle(url: URL, count: Int) async throws {
        // A descriptor per socket: the soft limit raised to the hard one.
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        getrlimit(resource, &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(resource, &limit)
        let connect = Connect()
        // One socket first: the client, its thread and libcurl's state are not per socket.
        let first = try await connect.webSocket(Endpoint(baseURL: url))
        try await first.ping()
        let before = residentMiB()
        var sockets: [WebSocket] = []
        for _ in 0..<count {
            sockets.append(try await connect.webSocket(Endpoint(baseURL: url)))
        }
        // Every one of them alive: a ping each, answered.
        for socket in sockets { try await socket.ping() }
        try await Task.sleep(for: .milliseconds(200))
        let after = residentMiB()
        print(String(format: "idle %d %.1f %.1f %.1f", count, before, after, (after - before) * 1024 / Double(count)))
        for socket in sockets { try await socket.close() }
        try await first.close()
    }

    static func echo(url: URL, count: Int) async throws {
        let socket = try await Connect().webSocket(Endpoint(baseURL: url))
        var messages = socket.messages.makeAsyncIterator()
        let text = String(repeating: "x", count: 32)
        for _ in 0..<100 {
            try await socket.send(text)
            _ = try await messages.next()
        }
        let start = ContinuousClock.now
        for _ in 0..<count {
            try await socket.send(text)
            _ = try await messages.next()
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        print(String(format: "echo %d %.3f %.0f", count, seconds, Double(count) / seconds))
        try await socket.close()
    }

    static func flood(url: URL, count: Int, bytes: Int, text: Bool) async throws {
        let socket = try await Connect().webSocket(Endpoint(baseURL: url))
        var messages = socket.messages.makeAsyncIterator()
        let start = ContinuousClock.now
        try await socket.send("cmd:\(text ? "flood-text" : "flood") \(count) \(bytes)")
        var received = 0
        while received < count, let message = try await messages.next() {
            switch message {
            case .binary(let data) where !text && data.count == bytes: break
            case .text(let string) where text && string.utf8.count == bytes: break
            default: fatalError("unexpected \(message)")
            }
            received += 1
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        print(
            String(
                format: "flood %d %d %.3f %.0f %.1f", count, bytes, seconds, Double(count) / seconds,
                Double(count * bytes) / seconds / 1_000_000))
        try await socket.close()
    }
}
