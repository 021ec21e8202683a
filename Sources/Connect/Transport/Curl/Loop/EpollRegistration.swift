#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the loop's epoll set holds for one descriptor, and the change to the set each event
/// makes: libcurl's wish for the socket (`CURLMOPT_SOCKETFUNCTION`), readiness found on it, a
/// connection opened or closed on it.
///
/// libcurl forgets a keep-alive connection's socket when its transfer ends and names it again
/// when the next request goes out on it: taken out of the set and put back, that would be two
/// or three `epoll_ctl` calls a request. A connection's socket registered for reading stays in
/// the set while it is idle instead: its next wish to be read is no call at all. It can stay
/// because the transport hears of every established connection's closing
/// (`CURLOPT_CLOSESOCKETFUNCTION`), where it leaves the set before it closes, so no registration
/// outlives its socket. An idle connection that turns readable (its server closed it, or sent
/// bytes nobody asked for) leaves the set at once, so that it does not wake every wait after;
/// the next request finds what is waiting on it as before.
///
/// A socket counts as a connection only once an exchange went out on it: libcurl 7.88 closes a
/// socket that never finished connecting (a connect that timed out, the slower of two addresses)
/// without word to the transport. Such sockets and other descriptors (a name resolver's socket
/// pair, say) leave the set when libcurl forgets them, and since one might have closed under
/// another number's registration, a wish for a descriptor believed registered is a modification
/// that falls back to an addition. A plain value, so that its rules are tested without a socket
/// (`EpollRegistrationTests`).
struct EpollRegistration: Equatable {
    /// A change to the epoll set.
    enum Change: Equatable {
        case none
        /// Registers the descriptor for `events` (poll(2) events); `believedRegistered` says
        /// which of `EPOLL_CTL_MOD` and `EPOLL_CTL_ADD` to try first.
        case watch(events: Int16, believedRegistered: Bool)
        /// Takes the descriptor out of the set.
        case forget
    }

    /// The poll(2) events the descriptor is registered for in the set; `nil` when it is not in it.
    private(set) var events: Int16?
    /// The descriptor is an established connection's socket, whose closing the transport hears of.
    private(set) var isConnection = false

    /// A connection's socket was opened on the descriptor: a new socket, in no set yet, and no
    /// connection until an exchange goes out on it.
    mutating func connectionOpened() {
        self = EpollRegistration()
    }

    /// An exchange went out on the descriptor's socket: a connection libcurl closes with word to
    /// the transport.
    mutating func connectionEstablished() {
        isConnection = true
    }

    /// libcurl closes the connection's socket on the descriptor.
    mutating func connectionClosing() -> Change {
        defer { self = EpollRegistration() }
        return events == nil ? .none : .forget
    }

    /// libcurl wants the socket watched for `wish` (poll(2) events), or no longer (`nil`).
    mutating func libcurlWatches(_ wish: Int16?) -> Change {
        guard let wish else {
            // An idle connection stays registered for reading, what its next request waits for.
            guard let events, !(isConnection && events == Self.readable) else { return .none }
            self.events = nil
            return .forget
        }
        // A connection's registration is known to be in the set; any other may have closed.
        if isConnection, events == wish { return .none }
        defer { events = wish }
        return .watch(events: wish, believedRegistered: events != nil)
    }

    /// A wait found the descriptor ready while libcurl watches it for nothing: an idle
    /// connection's registration, which would wake every wait after this one.
    mutating func readyWithoutInterest() -> Change {
        guard events != nil else { return .none }
        events = nil
        return .forget
    }

    /// An established connection's socket registered for reading: while libcurl wishes nothing
    /// of it, an idle connection the set reports when anything arrives on it.
    var isIdleConnectionForReading: Bool {
        isConnection && events == Self.readable
    }

    static let readable = Int16(POLLIN)
}
