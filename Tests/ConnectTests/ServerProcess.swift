import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server program the tests start (nginx, a Python peer), spawned with `posix_spawn` rather
/// than Foundation's `Process`, for three reasons:
///
/// - The child starts with no signal blocked and the default action for the signals `stop`
///   sends. A child keeps its launcher's signal mask, and the cooperative pool's threads block
///   SIGTERM and SIGINT: a Python server launched from one ignored `stop`'s SIGTERM, held `stop`'s
///   thread for its whole grace, and outlived a test process that ended meanwhile.
/// - The descriptors from 3 up are closed in the child by one file action. `Process.run()` on
///   Linux finds the highest open descriptor by copying each /proc/self/fd entry's whole
///   256-byte name, which reads past the end of the directory buffer once the buffer is full:
///   with a few thousand descriptors open (the tests at their busiest) it crashed the test
///   process, signal 11 in a `memcpy`.
/// - It leads a process group of its own, so that `stop` can end what it spawned.
final class ServerProcess: Sendable {
    struct SpawnFailed: Error, CustomStringConvertible {
        let program: String
        let code: Int32
        var description: String { "posix_spawn \(program): \(String(cString: strerror(code)))" }
    }

    let processIdentifier: pid_t
    /// Whether `waitpid` has reaped the process.
    private let reaped = Atomic<Bool>(false)

    /// Starts `program` with `arguments` in `directory`, its standard input /dev/null and its
    /// output, standard and error, in `log` (created or emptied): away from the test runner's
    /// own pipes, which a server that outlived a crashed test process would otherwise hold
    /// open, and `swift test` would wait for their end for ever.
    init(program: URL, arguments: [String], directory: URL, log: URL) throws {
        var actions = SpawnFileActions()
        defer { actions.destroy() }
        var attributes = SpawnAttributes()
        defer { attributes.destroy() }
        var code = actions.open(0, "/dev/null", O_RDONLY)
        if code == 0 { code = actions.open(1, log.path, O_WRONLY | O_CREAT | O_TRUNC) }
        if code == 0 { code = actions.duplicate(1, as: 2) }
        if code == 0 { code = actions.changeDirectory(to: directory.path) }
        if code == 0 { code = actions.closeFrom(3) }
        if code == 0 { code = attributes.startPlain() }
        var pid = pid_t(0)
        if code == 0 {
            var argv = ([program.path] + arguments).map { strdup($0) }
            defer { argv.forEach { free($0) } }
            argv.append(nil)
            code = posix_spawn(&pid, program.path, &actions.raw, &attributes.raw, argv, environ)
        }
        guard code == 0 else { throw SpawnFailed(program: program.path, code: code) }
        processIdentifier = pid
    }

    /// Whether the process has not exited; reaps it once it has.
    var isRunning: Bool {
        if reaped.load(ordering: .acquiring) { return false }
        var status: Int32 = 0
        // 0: still running. Otherwise reaped here, or by another caller (ECHILD).
        guard waitpid(processIdentifier, &status, WNOHANG) != 0 else { return true }
        reaped.store(true, ordering: .releasing)
        return false
    }

    /// Stops the server, then runs `cleanUp` (removing its log or directory): SIGTERM, and
    /// SIGKILL if it has not exited within `grace`; then SIGKILL to what it left in its process
    /// group, such as a worker process hypercorn spawned that was still sending when its parent
    /// was killed, which would otherwise go on using a CPU and its sockets for the rest of the
    /// run. The wait runs on a thread of its own, never the caller's: tests stop servers in
    /// `defer` on one of the cooperative pool's few threads, and a server slow to exit on a
    /// loaded machine would hold every other test's task meanwhile.
    func stop(grace: Duration = .seconds(10), then cleanUp: @escaping @Sendable () -> Void = {}) {
        guard isRunning else {
            kill(-processIdentifier, SIGKILL)
            return cleanUp()
        }
        kill(processIdentifier, SIGTERM)
        Thread.detachNewThread { [self] in
            if !waitForExit(within: grace) {
                kill(processIdentifier, SIGKILL)
                _ = waitForExit(within: .seconds(5))
            }
            // The group outlives its leader while a member lives, and its ID is not given to a
            // new process meanwhile.
            kill(-processIdentifier, SIGKILL)
            cleanUp()
        }
    }

    /// Whether the process ended within `limit`; polls, so call it only on a thread of its own.
    private func waitForExit(within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(10_000)
        }
        return true
    }
}

/// `posix_spawn_file_actions_t`, with the two actions the C library declares only for GNU
/// sources (glibc 2.29 and 2.34), which Swift's import of it leaves out: looked up by name.
private struct SpawnFileActions {
    #if canImport(Darwin)
    var raw: posix_spawn_file_actions_t? = nil
    #else
    var raw = posix_spawn_file_actions_t()
    #endif

    init() { posix_spawn_file_actions_init(&raw) }

    mutating func destroy() { posix_spawn_file_actions_destroy(&raw) }

    mutating func open(_ descriptor: Int32, _ path: String, _ flags: Int32) -> Int32 {
        posix_spawn_file_actions_addopen(&raw, descriptor, path, flags, 0o644)
    }

    mutating func duplicate(_ descriptor: Int32, as other: Int32) -> Int32 {
        posix_spawn_file_actions_adddup2(&raw, descriptor, other)
    }

    mutating func changeDirectory(to path: String) -> Int32 {
        #if canImport(Darwin)
        return posix_spawn_file_actions_addchdir_np(&raw, path)
        #else
        typealias AddChdir = @convention(c) (UnsafeMutableRawPointer, UnsafePointer<CChar>) -> Int32
        guard let addChdir = Self.function("posix_spawn_file_actions_addchdir_np", as: AddChdir.self) else {
            return ENOSYS
        }
        return addChdir(&raw, path)
        #endif
    }

    /// Closes every descriptor from `lowest` up in the child (on Darwin, the attributes'
    /// `POSIX_SPAWN_CLOEXEC_DEFAULT` does).
    mutating func closeFrom(_ lowest: Int32) -> Int32 {
        #if canImport(Darwin)
        return 0
        #else
        typealias AddCloseFrom = @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
        guard let addCloseFrom = Self.function("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
        else { return ENOSYS }
        return addCloseFrom(&raw, lowest)
        #endif
    }

    #if !canImport(Darwin)
    /// The C library's function `name`, of the C function type `type`, or `nil` if it has none.
    private static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        // The cast is as sound as `type` is the function's C signature.
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }
    #endif
}

/// `posix_spawnattr_t`.
private struct SpawnAttributes {
    #if canImport(Darwin)
    var raw: posix_spawnattr_t? = nil
    #else
    var raw = posix_spawnattr_t()
    #endif

    init() { posix_spawnattr_init(&raw) }

    mutating func destroy() { posix_spawnattr_destroy(&raw) }

    /// No signal blocked, the default action for the signals a server is stopped or told
    /// something with, and a process group of its own.
    mutating func startPlain() -> Int32 {
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        var code = posix_spawnattr_setsigmask(&raw, &none)
        if code == 0 { code = posix_spawnattr_setsigdefault(&raw, &defaults) }
        if code == 0 { code = posix_spawnattr_setpgroup(&raw, 0) }
        if code == 0 { code = posix_spawnattr_setflags(&raw, Int16(flags)) }
        return code
    }
}
