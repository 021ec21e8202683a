import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A multi handle driven by `curl_multi_socket_action`: the sockets libcurl asks the loop to
/// watch and its timer, as its callbacks report them, and the calls that hand libcurl what the
/// loop's poll found.
///
/// Driven this way, libcurl runs only the transfers on a socket that is ready and those whose
/// timer is due. `curl_multi_perform` runs every transfer in flight on every call, and libcurl
/// 7.88 has each check its own socket with a poll(2) of its own: a pass that finishes one
/// request among 64 in flight costs 64 system calls, and requests that arrive one at a time pay
/// that each.
///
/// Used by the loop's leading thread alone, as the multi handle is.
final class MultiSocketWatch {
    let multi: UnsafeMutableRawPointer
    /// The sockets libcurl waits on, with the poll(2) events it waits for.
    private var interests: [curl_socket_t: Int16] = [:]
    /// When libcurl's timer is due; `nil` while none runs.
    private var deadline: MonotonicInstant?
    /// The sockets the last poll found ready, with the `CURL_CSELECT_*` mask for each.
    private var ready: [(socket: curl_socket_t, mask: Int32)] = []
    /// The sockets the last ``act()`` handed libcurl (see ``actAgain()``).
    private var acted: [(socket: curl_socket_t, mask: Int32)] = []

    /// Watches `multi`, which it sets up to report its sockets and timer here. `multi` must not
    /// outlive the watch: its callbacks point at it, unretained.
    init(_ multi: UnsafeMutableRawPointer) {
        self.multi = multi
        let context = Unmanaged.passUnretained(self).toOpaque()
        ccurl_multi_setopt_socket_callback(multi) { _, socket, what, context, _ in
            let watch = Unmanaged<MultiSocketWatch>.fromOpaque(context!).takeUnretainedValue()
            watch.interests[socket] = what == CURL_POLL_REMOVE ? nil : MultiSocketWatch.pollEvents(what)
            return 0
        }
        ccurl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        ccurl_multi_setopt_timer_callback(multi) { _, milliseconds, context in
            let watch = Unmanaged<MultiSocketWatch>.fromOpaque(context!).takeUnretainedValue()
            watch.deadline = milliseconds < 0 ? nil : .now + .milliseconds(milliseconds)
            return 0
        }
        ccurl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
    }

    /// How many sockets libcurl has the loop watch now.
    var watchedSocketCount: Int { interests.count }

    /// The poll(2) events for libcurl's `CURL_POLL_*` wish.
    static func pollEvents(_ what: Int32) -> Int16 {
        (what & CURL_POLL_IN != 0 ? Int16(POLLIN) : 0) | (what & CURL_POLL_OUT != 0 ? Int16(POLLOUT) : 0)
    }

    /// The `CURL_CSELECT_*` mask for what poll(2) returned on a socket that waited for `events`.
    /// An error or a hang-up is reported as the events it waited for as well, so that the read
    /// or write libcurl tries finds it.
    static func actionMask(returned: Int16, waitedFor events: Int16) -> Int32 {
        let failed = returned & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
        let readable = returned & Int16(POLLIN | POLLPRI) != 0 || (failed && events & Int16(POLLIN) != 0)
        let writable = returned & Int16(POLLOUT) != 0 || (failed && events & Int16(POLLOUT) != 0)
        return (readable ? CURL_CSELECT_IN : 0) | (writable ? CURL_CSELECT_OUT : 0) | (failed ? CURL_CSELECT_ERR : 0)
    }

    /// Appends the watched sockets to `polls`.
    func appendPolls(to polls: inout [pollfd]) {
        for (socket, events) in interests {
            polls.append(pollfd(fd: socket, events: events, revents: 0))
        }
    }

    /// How long a poll may wait for the timer, in milliseconds rounded up; `nil` without one.
    func timeout(from now: MonotonicInstant) -> Int? {
        guard let deadline else { return nil }
        return now < deadline ? Int((deadline - now) / .milliseconds(1)) + 1 : 0
    }

    /// Notes what a poll returned for the sockets ``appendPolls(to:)`` added, for ``act()``.
    func noteReadiness(_ polled: ArraySlice<pollfd>) {
        for entry in polled where entry.revents != 0 {
            ready.append((entry.fd, Self.actionMask(returned: entry.revents, waitedFor: entry.events)))
        }
    }

    /// Hands libcurl the sockets found ready since the last call, then its timer if due.
    func act() {
        var running: Int32 = 0
        swap(&ready, &acted)
        ready.removeAll(keepingCapacity: true)
        for (socket, mask) in acted {
            curl_multi_socket_action(multi, socket, mask, &running)
        }
        runTimerIfDue()
    }

    /// Hands libcurl the sockets the last ``act()`` did again, and its timer if due: the
    /// transfers on those connections run once more.
    func actAgain() {
        var running: Int32 = 0
        for (socket, mask) in acted {
            curl_multi_socket_action(multi, socket, mask, &running)
        }
        runTimerIfDue()
    }

    /// Runs libcurl's timer if it is due.
    private func runTimerIfDue() {
        guard let deadline, !(MonotonicInstant.now < deadline) else { return }
        self.deadline = nil
        var running: Int32 = 0
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
    }
}
