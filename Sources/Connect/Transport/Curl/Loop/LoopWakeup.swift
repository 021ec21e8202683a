import CCurl

/// A pipe the transfer loop's poll watches, written from any thread to wake the loop.
///
/// In a process with no file descriptors left there is no pipe: both ends are -1, which poll(2)
/// skips, and the loop wakes on its own every ``TransferLoop/longestWaitWithoutWakeup`` to take
/// what was queued, slower but never stuck.
final class LoopWakeup: Sendable {
    /// The end the loop polls and drains; -1 without a pipe.
    let readEnd: Int32
    /// The end ``wake()`` writes to; -1 without a pipe.
    let writeEnd: Int32

    /// Whether there is a pipe to wake the loop through.
    var wakes: Bool { readEnd >= 0 }

    /// Makes the pipe, both ends non-blocking (a full pipe is readable already, so a wake that
    /// finds it full is not lost) and closed on exec, in one call on Linux
    /// (`ccurl_open_wake_pipe`): a process the app spawns does not hold the loop's pipe.
    init() {
        var ends: [Int32] = [-1, -1]
        if ccurl_open_wake_pipe(&ends) != 0 { ends = [-1, -1] }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        guard wakes else { return }
        _ = systemClose(readEnd)
        _ = systemClose(writeEnd)
    }

    /// Wakes the loop's poll. Safe from any thread.
    func wake() {
        guard wakes else { return }
        var byte: UInt8 = 1
        _ = systemWrite(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so that the next poll sleeps until the next wake.
    func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { systemRead(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
