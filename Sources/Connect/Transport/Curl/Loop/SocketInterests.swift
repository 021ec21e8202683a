/// The sockets libcurl asks the loop to watch (`CURLMOPT_SOCKETFUNCTION`), each with the poll(2)
/// events it waits for, indexed by descriptor.
///
/// libcurl names a socket when a transfer starts waiting on it and forgets it when the transfer
/// ends, and every socket a wait finds ready is looked up here: several times a request. A
/// descriptor is a small number the system hands out lowest first, so an array indexed by it
/// answers each with a bounds check and a load, where a dictionary hashes the key through the
/// standard library's `Hasher`.
struct SocketInterests {
    /// The events for each descriptor; `notWatched` for one libcurl does not wait on.
    private var events: [Int16] = []

    /// What `events` holds for a descriptor libcurl does not wait on: poll(2) events are never
    /// negative.
    private static let notWatched: Int16 = -1

    /// The events libcurl waits for on `socket`; `nil` when it does not wait on it. Setting
    /// `nil` forgets the socket. A negative descriptor is never watched.
    subscript(socket: Int32) -> Int16? {
        get {
            let index = Int(socket)
            guard index >= 0, index < events.count else { return nil }
            let wanted = events[index]
            return wanted == Self.notWatched ? nil : wanted
        }
        set {
            let index = Int(socket)
            guard index >= 0 else { return }
            if index >= events.count {
                guard newValue != nil else { return }
                events.extend(toCover: index, with: Self.notWatched)
            }
            events[index] = newValue ?? Self.notWatched
        }
    }

    /// How many descriptors are watched; counted, since only the tests ask.
    var count: Int { events.count { $0 != Self.notWatched } }

    /// Each watched socket with its events, lowest descriptor first.
    var watched: some Sequence<(socket: Int32, events: Int16)> {
        events.indices.lazy.filter { self.events[$0] != Self.notWatched }.map {
            (socket: Int32($0), events: self.events[$0])
        }
    }
}
