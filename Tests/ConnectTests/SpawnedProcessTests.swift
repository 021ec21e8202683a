import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process the app spawns inherits none of the client's connections. A socket left open across
/// exec lives on in the child after the client closes it, so the server would not see the
/// connection close until the child ended (and under load, the tests' own servers and peers are
/// such children).
@Suite("Spawned processes")
struct SpawnedProcessTests {
    /// The child is spawned the plainest way, `posix_spawn` with no file actions, which passes on
    /// every descriptor not marked close-on-exec.
    @Test func aClosedConnectionClosesWhileAProcessSpawnedDuringItLives() async throws {
        let server = try TestServer { _ in TestResponse(behavior: .stall) }
        defer { server.shutdown() }
        let connect = Connect()
        let future = connect.request(TestConnector(server, "/"))
        #expect(await eventually { server.openConnectionCount == 1 })
        let child = try SpawnedChild(["/bin/sleep", "600"])
        defer { child.end() }
        future.cancel()
        #expect(await connectError(future) == .cancelled)
        #expect(
            await eventually { server.openConnectionCount == 0 },
            "the server saw the cancelled transfer's connection close while the child lives")
        #expect(child.isRunning)
    }

    /// The transfer loop's wake-up pipe is made closed on exec and non-blocking (in one call on
    /// Linux, so that no process spawned meanwhile holds it), and still wakes and drains.
    @Test func theLoopsWakeUpPipeIsClosedOnExecAndNonBlocking() {
        let wakeup = LoopWakeup()
        #expect(wakeup.wakes)
        for end in [wakeup.readEnd, wakeup.writeEnd] {
            #expect(fcntl(end, F_GETFD) & FD_CLOEXEC != 0)
            #expect(fcntl(end, F_GETFL) & O_NONBLOCK != 0)
        }
        wakeup.wake()
        var ready = pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 0) == 1)
        wakeup.drain()
        ready.revents = 0
        #expect(poll(&ready, 1, 0) == 0)
    }
}

/// A child process spawned with `posix_spawn`, inheriting what an app's child would; ended and
/// reaped by ``end()``.
private struct SpawnedChild {
    struct SpawnFailed: Error { let code: Int32 }

    let pid: pid_t

    init(_ arguments: [String]) throws {
        var argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        argv.append(nil)
        var pid = pid_t(0)
        let code = posix_spawn(&pid, arguments[0], nil, nil, argv, environ)
        guard code == 0 else { throw SpawnFailed(code: code) }
        self.pid = pid
    }

    /// It has not exited.
    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    func end() {
        _ = kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }
}
