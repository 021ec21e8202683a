import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A multi handle driven by `curl_multi_socket_action`: the sockets libcurl asks the loop to
/// watch and its timer, as its callbacks report them, and the calls that hand libcurl what the
/// loop's wait found.
///
/// Driven this way, libcurl runs only the transfers on a socket that is ready and those whose
/// timer is due. `curl_multi_perform` runs every transfer in flight on every call, and libcurl
/// 7.88 has each check its own socket with a poll(2) of its own: a pass that finishes one
/// request among 64 in flight costs 64 system calls, and requests that arrive one at a time pay
/// that each.
///
/// On Linux the sockets are kept in an epoll(7) set as libcurl names them, so that a wait costs
/// the sockets that are ready, not every socket watched: with hundreds of requests waiting (long
/// polls, event streams), a poll(2) over all of them on every wait is most of a request's cost.
/// An idle keep-alive connection's socket stays in the set for its next request
/// (``EpollRegistration``). Elsewhere, or should the set fail, each wait polls every socket.
///
/// Used by the loop's leading thread alone, as the multi handle is.
final class MultiSocketWatch {
    let multi: UnsafeMutableRawPointer
    // `@exclusivity(unchecked)` on the state below: the loop's leading thread alone touches it,
    // one access at a time (libcurl's callbacks run inside `curl_multi_socket_action`, while no
    // access is open), so the runtime's dynamic checks (a thread-local lookup per access, on
    // every wait and every socket libcurl names) would find nothing.
    /// The sockets libcurl waits on, with the poll(2) events it waits for.
    @exclusivity(unchecked) private var interests = SocketInterests()
    /// libcurl's timer.
    @exclusivity(unchecked) private var timer = LibcurlTimer.stopped
    /// The sockets the last wait found ready, with the `CURL_CSELECT_*` mask for each.
    @exclusivity(unchecked) private var ready: [(socket: curl_socket_t, mask: Int32)] = []
    /// The sockets ``act()`` hands libcurl, `ready`'s buffer traded with it: neither list
    /// allocates once grown.
    @exclusivity(unchecked) private var acting: [(socket: curl_socket_t, mask: Int32)] = []
    /// The epoll set the sockets are watched in; -1 when every wait polls them all.
    @exclusivity(unchecked) private var epoll: Int32 = -1
    /// A descriptor in the epoll set beside libcurl's sockets (the loop's wake-up pipe), which a
    /// wait reports rather than hands to libcurl.
    private let wakeup: Int32
    /// Where an epoll wait writes the sockets it found ready.
    @exclusivity(unchecked) private var found: [pollfd] = []
    /// What the epoll set holds for each descriptor, indexed by descriptor (small numbers).
    @exclusivity(unchecked) private var registrations: [EpollRegistration] = []
    /// How many changes the epoll set took (`epoll_ctl` calls, a fallback aside).
    @exclusivity(unchecked) private(set) var epollSetChanges = 0
    /// How many waits in the epoll set there were.
    @exclusivity(unchecked) private(set) var epollWaits = 0
    /// How many times the epoll set was asked what is ready, by a wait or by a look for idle
    /// connections (``idleConnectionIsQuiet(_:)``).
    @exclusivity(unchecked) private(set) var idleLooks = 0
    /// What the set has told of idle connections in this pass of the loop (each ``act()``
    /// starts one).
    @exclusivity(unchecked) private var idleLook = IdleLook.due
    /// What the waits since the last ``act()`` told: the wait just before a pass counts as
    /// its look.
    @exclusivity(unchecked) private var idleLookBeforePass = IdleLook.due
    /// For each descriptor, `idleLooks` when it last became an idle connection's socket: the
    /// looks after that one saw it idle.
    @exclusivity(unchecked) private var becameIdleAtLook: [Int] = []

    /// Watches `multi`, which it sets up to report its sockets and timer here; with
    /// `inEpollSet`, in an epoll set where there is one, beside `wakeup`. `multi` must not
    /// outlive the watch: its callbacks point at it, unretained.
    init(_ multi: UnsafeMutableRawPointer, inEpollSet: Bool = false, wakeup: Int32 = -1) {
        self.multi = multi
        self.wakeup = wakeup
        if inEpollSet { openEpollSet() }
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The callbacks borrow the watch for their call rather than retain it: it outlives
        // `multi`, and nothing they do releases it.
        ccurl_multi_setopt_socket_callback(multi) { _, socket, what, context, _ in
            let events = what == CURL_POLL_REMOVE ? nil : MultiSocketWatch.pollEvents(what)
            Unmanaged<MultiSocketWatch>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.libcurlWatches(socket, events)
            }
            return 0
        }
        ccurl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        ccurl_multi_setopt_timer_callback(multi) { _, milliseconds, context in
            let timer = LibcurlTimer(milliseconds: milliseconds)
            Unmanaged<MultiSocketWatch>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.timer = timer }
            return 0
        }
        ccurl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
    }

    deinit {
        closeEpollSet()
    }

    /// How many sockets libcurl has the loop watch now.
    var watchedSocketCount: Int { interests.count }

    /// Whether the sockets are watched in an epoll set (see ``waitInEpollSet(timeout:)``).
    var usesEpollSet: Bool { epoll >= 0 }

    /// How many of libcurl's sockets the epoll set holds, idle connections' among them.
    var epollSetSize: Int { registrations.count { $0.events != nil } }

    /// The poll(2) events for libcurl's `CURL_POLL_*` wish.
    static func pollEvents(_ what: Int32) -> Int16 {
        (what & CURL_POLL_IN != 0 ? Int16(POLLIN) : 0) | (what & CURL_POLL_OUT != 0 ? Int16(POLLOUT) : 0)
    }

    /// The `CURL_CSELECT_*` mask for what a wait returned on a socket that waited for `events`.
    /// An error or a hang-up is reported as the events it waited for as well, so that the read
    /// or write libcurl tries finds it.
    static func actionMask(returned: Int16, waitedFor events: Int16) -> Int32 {
        let failed = returned & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
        let readable = returned & Int16(POLLIN | POLLPRI) != 0 || (failed && events & Int16(POLLIN) != 0)
        let writable = returned & Int16(POLLOUT) != 0 || (failed && events & Int16(POLLOUT) != 0)
        return (readable ? CURL_CSELECT_IN : 0) | (writable ? CURL_CSELECT_OUT : 0) | (failed ? CURL_CSELECT_ERR : 0)
    }

    /// libcurl's socket callback: `socket` is to be watched for `events`, or no longer (`nil`).
    private func libcurlWatches(_ socket: curl_socket_t, _ events: Int16?) {
        interests[socket] = events
        changeEpollSet(for: socket) { $0.libcurlWatches(events) }
        if events == nil, epoll >= 0, socket >= 0 {
            becameIdleAtLook.extend(toCover: Int(socket), with: 0)
            becameIdleAtLook[Int(socket)] = idleLooks
        }
    }

    /// Whether nothing waits on the idle connection of `socket`, as far as the epoll set can
    /// tell: the socket is in it for reading while libcurl wishes nothing of it, and a look at
    /// the set in this pass of the loop (or the wait the pass began with) after the connection
    /// became idle did not find it ready (one that does takes it out of the set:
    /// ``EpollRegistration/readyWithoutInterest()``). `false` where the set cannot tell, for the
    /// caller to look at the socket itself.
    ///
    /// One look serves every connection chosen in a pass, where a look at each socket (a peek)
    /// was a system call a reused connection. Bytes that arrive after the look go unseen, as
    /// they would after a peek: both look before the request is sent, not when its answer comes.
    func idleConnectionIsQuiet(_ socket: curl_socket_t) -> Bool {
        #if os(Linux)
        let index = Int(socket)
        guard epoll >= 0, socket >= 0, index < registrations.count, interests[socket] == nil,
            registrations[index].isIdleConnectionForReading
        else { return false }
        switch idleLook {
        case .incomplete:
            return false
        case .current where idleLooks > becameIdleAtLook[index]:
            break
        case .current, .due:
            lookAtIdleConnections()
            guard idleLook == .current else { return false }
        }
        return registrations[index].isIdleConnectionForReading
        #else
        return false
        #endif
    }

    /// What the epoll set has told of idle connections in a pass of the loop.
    private enum IdleLook {
        /// Nothing: the next question looks.
        case due
        /// A wait or a look saw every descriptor that was ready then.
        case current
        /// A look came back full and may have missed some: every question in the pass peeks,
        /// rather than look again and peek.
        case incomplete

        /// What a wait or look that found `count` descriptors ready, with room for `capacity`,
        /// told.
        init(found count: Int, capacity: Int) {
            self = count >= 0 && count < capacity ? .current : .incomplete
        }
    }

    /// Looks at the epoll set without waiting, and takes the idle connections it finds ready out
    /// of it. What it finds on libcurl's sockets and the wake-up descriptor is left for the next
    /// wait, which finds it again: the set reports a descriptor for as long as it is ready.
    /// `idleLook` says whether the look may have missed some: the set failed, or more were
    /// ready than one look reports.
    private func lookAtIdleConnections() {
        #if os(Linux)
        idleLooks += 1
        let count = found.withUnsafeMutableBufferPointer {
            Int(ccurl_epoll_wait(epoll, $0.baseAddress, Int32($0.count), 0))
        }
        idleLook = IdleLook(found: count, capacity: found.count)
        for entry in found.prefix(max(count, 0)) where entry.fd != wakeup && interests[entry.fd] == nil {
            changeEpollSet(for: entry.fd) { $0.readyWithoutInterest() }
        }
        #endif
    }

    /// A connection's socket was opened on `socket`: a new socket, in no set yet.
    func connectionOpened(_ socket: curl_socket_t) {
        changeEpollSet(for: socket) {
            $0.connectionOpened()
            return .none
        }
    }

    /// An exchange went out on the connection of `socket`: its registration can outlive
    /// libcurl's interest, since ``connectionClosing(_:)`` will be told of its end.
    func connectionEstablished(_ socket: curl_socket_t) {
        changeEpollSet(for: socket) {
            $0.connectionEstablished()
            return .none
        }
    }

    /// libcurl closes the connection's socket `socket`: it leaves the epoll set first.
    func connectionClosing(_ socket: curl_socket_t) {
        changeEpollSet(for: socket) { $0.connectionClosing() }
    }

    /// Makes the change to the epoll set that `decide` returns for `socket`'s registration.
    private func changeEpollSet(
        for socket: curl_socket_t, _ decide: (inout EpollRegistration) -> EpollRegistration.Change
    ) {
        guard epoll >= 0, socket >= 0 else { return }
        registrations.extend(toCover: Int(socket), with: EpollRegistration())
        let change = decide(&registrations[Int(socket)])
        #if os(Linux)
        switch change {
        case .none:
            return
        case .forget:
            ccurl_epoll_forget(epoll, socket)
        case .watch(let events, let believedRegistered):
            // A set that refuses a socket has every wait poll them all from then on.
            if ccurl_epoll_watch(epoll, socket, events, believedRegistered ? 1 : 0) != 0 { closeEpollSet() }
        }
        epollSetChanges += 1
        #else
        _ = change  // No epoll set is opened elsewhere.
        #endif
    }

    /// Appends to `polls` what a poll(2) waits on for libcurl: its sockets, or the epoll set
    /// they are in.
    func appendPolls(to polls: inout [pollfd]) {
        if epoll >= 0 { return polls.append(pollfd(fd: epoll, events: Int16(POLLIN), revents: 0)) }
        for (socket, events) in interests.watched {
            polls.append(pollfd(fd: socket, events: events, revents: 0))
        }
    }

    /// How long a wait may last for the timer, in milliseconds rounded up; `nil` without one.
    func timeout(from now: MonotonicInstant) -> Int? {
        timer.millisecondsToWait(from: now)
    }

    /// Notes what a poll returned for the entries ``appendPolls(to:)`` added, for ``act()``.
    func noteReadiness(_ polled: ArraySlice<pollfd>) {
        if epoll >= 0 {
            if polled.first.map({ $0.revents != 0 }) == true { _ = waitInEpollSet(timeout: 0) }
            return
        }
        for entry in polled where entry.revents != 0 {
            ready.append((entry.fd, Self.actionMask(returned: entry.revents, waitedFor: entry.events)))
        }
    }

    /// Waits in the epoll set up to `timeout` milliseconds and notes the sockets it finds ready,
    /// for ``act()``; whether it found the wake-up descriptor ready. Only with an epoll set.
    func waitInEpollSet(timeout: Int) -> Bool {
        #if os(Linux)
        epollWaits += 1
        let count = found.withUnsafeMutableBufferPointer {
            Int(ccurl_epoll_wait(epoll, $0.baseAddress, Int32($0.count), Int32(timeout)))
        }
        // It takes the idle connections it finds ready out of the set, as a look does.
        idleLooks += 1
        idleLookBeforePass = IdleLook(found: count, capacity: found.count)
        var woken = false
        for entry in found.prefix(max(count, 0)) {
            if entry.fd == wakeup {
                woken = true
            } else if let events = interests[entry.fd] {
                ready.append((entry.fd, Self.actionMask(returned: entry.revents, waitedFor: events)))
            } else {
                changeEpollSet(for: entry.fd) { $0.readyWithoutInterest() }
            }
        }
        return woken
        #else
        return false
        #endif
    }

    /// Hands libcurl the sockets found ready since the last call, then its timer if due.
    func act() {
        idleLook = idleLookBeforePass
        idleLookBeforePass = .due
        var running: Int32 = 0
        swap(&ready, &acting)
        ready.removeAll(keepingCapacity: true)
        for (socket, mask) in acting {
            curl_multi_socket_action(multi, socket, mask, &running)
        }
        runTimerIfDue()
    }

    /// Runs libcurl's timer if it is due, and says whether it did: the transfers libcurl marked
    /// to run now (a timer of 0 ms) run in this pass rather than the next.
    @discardableResult
    func runTimerIfDue() -> Bool {
        guard timer.isDue() else { return false }
        timer = .stopped
        var running: Int32 = 0
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
        return true
    }

    /// Opens the epoll set with the wake-up descriptor in it, where the system has one.
    private func openEpollSet() {
        #if os(Linux)
        epoll = ccurl_epoll_create()
        guard epoll >= 0 else { return }
        found = Array(repeating: pollfd(), count: 256)
        guard wakeup >= 0 else { return }
        if ccurl_epoll_watch(epoll, wakeup, Int16(POLLIN), 0) != 0 { closeEpollSet() }
        #endif
    }

    /// Closes the epoll set: every wait polls the sockets from then on.
    private func closeEpollSet() {
        guard epoll >= 0 else { return }
        _ = systemClose(epoll)
        epoll = -1
        registrations = []
    }
}
