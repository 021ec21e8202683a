/// The callers waiting for one transfer that identical requests share (see ``RequestCoalescer``):
/// events in (a caller joins or leaves, the answer lands), what to do out.
///
/// A flight is open from its first caller until its answer lands or its last caller leaves;
/// a closed flight takes no one, and the next identical request starts a flight of its own.
struct CoalescedFlight<Waiter> {
    /// What a caller's leaving asks for.
    enum Departure: Equatable {
        /// Others still wait: the transfer goes on.
        case othersWait
        /// The last caller left before the answer: the transfer is cancelled, and the flight is
        /// closed.
        case cancelTransfer
        /// The caller was no longer waiting (the answer landed, or it had left already).
        case notWaiting
    }

    private var waiters: [(id: Int, waiter: Waiter)] = []
    private var nextID = 0
    /// Whether a caller may still join.
    private(set) var isOpen = true
    /// How many callers joined in all, the first included.
    private(set) var joined = 0

    /// How many callers wait now.
    var waiting: Int { waiters.count }

    /// Adds `waiter`; its id to leave with, or `nil` when the flight is closed.
    mutating func join(_ waiter: Waiter) -> Int? {
        guard isOpen else { return nil }
        nextID += 1
        joined += 1
        waiters.append((nextID, waiter))
        return nextID
    }

    /// The caller `id` stops waiting (it was cancelled, or its own deadline passed).
    mutating func leave(_ id: Int) -> Departure {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return .notWaiting }
        waiters.remove(at: index)
        guard waiters.isEmpty, isOpen else { return .othersWait }
        isOpen = false
        return .cancelTransfer
    }

    /// The answer landed: the flight closes, and every caller still waiting is handed it.
    mutating func land() -> [Waiter] {
        isOpen = false
        defer { waiters = [] }
        return waiters.map(\.waiter)
    }
}
