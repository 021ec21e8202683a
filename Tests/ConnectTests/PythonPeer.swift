import Foundation

/// A program from the tests' Python venv (`.build-python/venv`, which `make test` installs from
/// `Tests/PythonPeers/requirements.txt`) listening on 127.0.0.1 and a free port: the servers
/// nobody here wrote that Connect is tested against (hypercorn, `websockets`, a CONNECT proxy).
/// It runs in `Tests/PythonPeers`; its output goes to a log in the temporary directory, removed
/// when it stops (see `serverScratch`).
final class PythonPeer: @unchecked Sendable {
    // @unchecked: set in init, then only read; `process` is stopped once in `shutdown`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let bin = root.appendingPathComponent(".build-python/venv/bin")

    /// Whether the venv has `program`.
    static func isInstalled(_ program: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent(program).path)
    }

    let port: Int
    private let process: ServerProcess
    /// The program's process ID.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Starts `program` (in the venv's `bin`) with the arguments for a port, on a free port: up to
    /// three ports are tried, since another test's server may take one between choosing it and
    /// the program's bind.
    init(program: String, arguments: (_ port: Int) -> [String]) async throws {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try unusedPort()
            let process: ServerProcess
            do {
                process = try ServerProcess(
                    program: Self.bin.appendingPathComponent(program), arguments: arguments(port),
                    directory: Self.root.appendingPathComponent("Tests/PythonPeers"), log: Self.log(port))
            } catch {
                lastError = error
                continue
            }
            if await Self.waitUntilListening(port, process) {
                self.port = port
                self.process = process
                return
            }
            process.stop { try? FileManager.default.removeItem(at: Self.log(port)) }
            lastError = POSIXError(.EADDRINUSE)
        }
        throw lastError ?? POSIXError(.EADDRINUSE)
    }

    /// Starts a Python script of `Tests/PythonPeers` with the venv's interpreter.
    convenience init(script: String, arguments: @escaping (_ port: Int) -> [String]) async throws {
        try await self.init(program: "python3") { [script] + arguments($0) }
    }

    /// Where the program's output goes: its warnings, for a test that fails.
    private static func log(_ port: Int) -> URL {
        serverScratch("python-peer-\(port).log")
    }

    func shutdown() {
        process.stop { [port] in try? FileManager.default.removeItem(at: Self.log(port)) }
    }

    /// Whether the program listens on `port` within 20 seconds. Sleeps between probes, so that a
    /// slow start (Python importing its packages on a loaded machine) holds none of the
    /// cooperative pool's threads.
    private static func waitUntilListening(_ port: Int, _ process: ServerProcess) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, process.isRunning {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            // Another test's server may have taken the port between `unusedPort()` and
            // the program's bind: then the program exits, and this tries another port.
            if connected, ownsListeningSocket(process.processIdentifier, port: port) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Whether the socket listening on `port` is one of `pid`'s, read from /proc (Linux; elsewhere
    /// `true`): a connection to the port proves only that something listens there.
    private static func ownsListeningSocket(_ pid: Int32, port: Int) -> Bool {
        // Read to its end: `String(contentsOfFile:)` takes only the first page of a /proc file.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return true }
        defer { try? file.close() }
        let table = String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
        let portSuffix = ":" + String(format: "%04X", port)
        // Each row: "sl local_address rem_address st … uid timeout inode …"; 0A is LISTEN.
        let inodes = Set(
            table.split(separator: "\n").dropFirst().compactMap { row -> String? in
                let fields = row.split(separator: " ")
                guard fields.count > 9, fields[1].hasSuffix(portSuffix), fields[3] == "0A" else { return nil }
                return "socket:[\(fields[9])]"
            })
        let directory = "/proc/\(pid)/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        return descriptors.contains { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(descriptor)"))
                .map(inodes.contains) ?? false
        }
    }
}
