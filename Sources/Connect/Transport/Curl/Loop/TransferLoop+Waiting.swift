import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Where the loop sleeps until a socket is ready or the nearest timer is due: in the epoll set of
// libcurl's sockets and the wake-up pipe (Linux), or in one poll(2) over the wake-up pipe, the
// sockets libcurl waits on (or their epoll set) and the WebSockets'.
extension TransferLoop {
    /// The longest the loop sleeps without a timer or a socket waking it, in milliseconds.
    static let longestWait = 60_000
    /// The longest it sleeps when it has no wake-up pipe (see ``LoopWakeup``), in milliseconds.
    static let longestWaitWithoutWakeup = 10

    /// Sleeps until a command wakes the loop, a socket libcurl or a WebSocket waits on is ready,
    /// or a timer is due; then notes which of libcurl's sockets are ready, for the next pass to
    /// hand to libcurl, and runs the WebSockets that are.
    func waitForWork() {
        let now = MonotonicInstant.now
        let longest = wakeup.wakes ? Self.longestWait : Self.longestWaitWithoutWakeup
        var timeout = min(multiSockets.timeout(from: now) ?? longest, longest)
        if let deadline = queued.earliest {
            timeout = min(timeout, now.millisecondsToWait(until: deadline))
        }
        if let deadline = connectClocks.earliest {
            timeout = min(timeout, now.millisecondsToWait(until: deadline))
        }
        // libcurl's sockets and the wake-up pipe in an epoll set, and no WebSockets: one wait
        // that costs the sockets that are ready.
        if multiSockets.usesEpollSet, _fastPath(webSocketMultiWatch == nil) {
            if multiSockets.waitInEpollSet(timeout: timeout) { wakeup.drain() }
            return
        }
        polls.removeAll(keepingCapacity: true)
        polls.append(pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0))
        multiSockets.appendPolls(to: &polls)
        let multiPolls = 1..<polls.count
        var webSocketPolls: WebSocketPolls?
        if _slowPath(webSocketMultiWatch != nil) {
            webSocketPolls = appendWebSocketPolls(to: &polls, now: now, timeout: &timeout)
        }
        // Without `webSocketIO`: a task may send on an open WebSocket meanwhile. A send that
        // leaves bytes waiting, or ends the connection, wakes the poll.
        _ = poll(&polls, nfds_t(polls.count), Int32(timeout))
        if polls[0].revents != 0 { wakeup.drain() }
        multiSockets.noteReadiness(polls[multiPolls])
        if let webSocketPolls { serviceWebSockets(webSocketPolls, now: .now) }
    }
}
