/// The sockets of open connections by their ports (see ``ConnectionTracker/Ports``), kept
/// sorted by ports and found by binary search.
///
/// Every request looks its connection up here once, and connections open and close far less
/// often than requests go out: a sorted array makes the lookup a few comparisons in one short
/// loop, where a dictionary hashes the key through the standard library's `Hasher` (a dozen
/// cache lines of code more on the path of every request). Adding and removing shift the
/// entries after the place, which for the connections of one client is a short copy.
struct SocketsByPorts {
    private var entries: [(ports: ConnectionTracker.Ports, socket: Int32)] = []

    /// How many connections it holds.
    var count: Int { entries.count }

    /// The socket of the connection with `ports`, if it is known.
    subscript(ports: ConnectionTracker.Ports) -> Int32? {
        let index = firstIndex(notBelow: ports)
        return index < entries.count && entries[index].ports == ports ? entries[index].socket : nil
    }

    /// Records `socket` as the connection with `ports`, in place of any other with them.
    mutating func set(_ socket: Int32, for ports: ConnectionTracker.Ports) {
        let index = firstIndex(notBelow: ports)
        if index < entries.count, entries[index].ports == ports {
            entries[index].socket = socket
        } else {
            entries.insert((ports, socket), at: index)
        }
    }

    /// Forgets the connection with `ports` if its socket is `socket` (a newer connection with
    /// the same ports is kept).
    mutating func remove(_ socket: Int32, for ports: ConnectionTracker.Ports) {
        let index = firstIndex(notBelow: ports)
        guard index < entries.count, entries[index].ports == ports, entries[index].socket == socket else { return }
        entries.remove(at: index)
    }

    /// The index of the first entry whose ports are not below `ports` (`count` if none is).
    private func firstIndex(notBelow ports: ConnectionTracker.Ports) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].ports < ports { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
