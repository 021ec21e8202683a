/// The transfers waiting in libcurl's queue for a connection, each with the deadline its own
/// timeout sets, and which of them are due.
///
/// A transfer waits there when its origin has `CURLMOPT_MAX_HOST_CONNECTIONS` connections busy,
/// or while the HTTP/2 connection it is to share is being opened. Driven by
/// `curl_multi_socket_action`, libcurl times out no transfer while it waits: 7.88 checks a
/// transfer's timeouts only once it has a connection, 8.14 only once it leaves the queue. A
/// request behind others that are never answered would wait for them, past its own timeout;
/// the loop ends such a wait itself (`TransferLoop+Queue.swift`). A plain value over any key,
/// so that its rules are tested without libcurl (`QueueDeadlinesTests`).
struct QueueDeadlines<Key> {
    struct Entry {
        let key: Key
        let deadline: MonotonicInstant
    }

    private(set) var entries: [Entry] = []
    /// The nearest deadline, when any transfer waits.
    private(set) var earliest: MonotonicInstant?

    /// `key` waits for a connection until `deadline`.
    mutating func add(_ key: Key, until deadline: MonotonicInstant) {
        entries.append(Entry(key: key, deadline: deadline))
        if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
    }

    /// The keys whose deadline passed by `now` and that still wait (`stillWaits`), in the order
    /// they were added; every one of them, and every key that no longer waits, is forgotten.
    mutating func takeDue(at now: MonotonicInstant, stillWaits: (Key) -> Bool) -> [Key] {
        guard let earliest, earliest <= now else { return [] }
        var due: [Key] = []
        forget { entry in
            guard stillWaits(entry.key) else { return true }
            guard entry.deadline <= now else { return false }
            due.append(entry.key)
            return true
        }
        return due
    }

    /// Forgets the keys that no longer wait: a transfer that left the queue, or ended.
    mutating func forgetThoseNotWaiting(_ stillWaits: (Key) -> Bool) {
        forget { !stillWaits($0.key) }
    }

    private mutating func forget(where leaves: (Entry) -> Bool) {
        entries.removeAll(where: leaves)
        earliest = entries.map(\.deadline).min()
    }

    /// How many keys are kept (some may no longer wait).
    var count: Int { entries.count }
}
