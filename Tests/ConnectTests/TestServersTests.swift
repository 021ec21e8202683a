import Foundation
import Testing

/// The tests' own servers: what keeps a test run from leaving servers running behind it.
@Suite("The tests' servers")
struct TestServersTests {
    #if os(Linux)
    /// A server starts with no signal blocked, whichever thread of the cooperative pool (whose
    /// threads block SIGTERM) started it: a child keeps the signal mask it was launched with,
    /// and a Python server that had SIGTERM blocked outlived its `stop` and the test process.
    @Test(.enabled(if: PythonPeer.isInstalled("python3") || ProcessInfo.processInfo.environment["CI"] != nil))
    func aServerStartsWithNoSignalBlocked() async throws {
        let peer = try await PythonPeer(program: "python3") { ["-m", "http.server", "--bind", "127.0.0.1", "\($0)"] }
        defer { peer.shutdown() }
        let status = try String(contentsOfFile: "/proc/\(peer.processIdentifier)/status", encoding: .utf8)
        let blocked = try #require(
            status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
                .flatMap { UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) })
        // The mask's bit n - 1 is signal n.
        #expect(blocked & (1 << (UInt64(SIGTERM) - 1)) == 0, "SigBlk \(String(blocked, radix: 16))")
        #expect(blocked & (1 << (UInt64(SIGINT) - 1)) == 0, "SigBlk \(String(blocked, radix: 16))")
    }

    /// A server inherits no descriptor of the test process beyond its standard three, not even
    /// one left open across exec: it would hold the test's connections and pipes open.
    @Test func aServerInheritsOnlyItsStandardDescriptors() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // not close-on-exec
        defer { ends.forEach { close($0) } }
        let log = serverScratch("sleep-\(UUID().uuidString).log")
        let sleeper = try ServerProcess(
            program: URL(fileURLWithPath: "/bin/sleep"), arguments: ["600"],
            directory: FileManager.default.temporaryDirectory, log: log)
        defer { sleeper.stop { try? FileManager.default.removeItem(at: log) } }
        // The dynamic loader opens and closes the libraries of the program: an inherited
        // descriptor would stay.
        let descriptors = "/proc/\(sleeper.processIdentifier)/fd"
        let open = { (try? FileManager.default.contentsOfDirectory(atPath: descriptors).sorted()) ?? [] }
        #expect(await eventually(within: .seconds(30)) { open() == ["0", "1", "2"] }, "\(open())")
        #expect(sleeper.isRunning)
    }
    #endif

    /// What a test process left in the temporary directory is removed once that process is
    /// gone, and only then: a server's files are named for the test process that started it.
    @Test func aGoneTestProcessesServerFilesAreRemoved() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("connect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ours = serverScratch("python-peer-1.log").lastPathComponent
        #expect(ours == "connect-test-server-\(getpid())-python-peer-1.log")
        // No process has the largest ID: pid_max is far below it.
        let gone = "connect-test-server-\(Int32.max)-nginx-1"
        for name in [ours, "connect-test-server-\(Int32.max)-python-peer-2.log", "unrelated-\(Int32.max)-x"] {
            #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: nil))
        }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent(gone).appendingPathComponent("logs"), withIntermediateDirectories: true
        )
        removeServerLeftovers(in: directory)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == [ours, "unrelated-\(Int32.max)-x"])
    }
}
