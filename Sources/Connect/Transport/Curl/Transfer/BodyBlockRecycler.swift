import ConnectFutures
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the memory of the last large body the app let go, for the next large body to arrive
/// into: its pages are mapped already, where a fresh block of 64 MiB takes a page fault for every
/// 4 KiB the body writes, which costs more than the transfer itself.
///
/// A large body's `Data` gives its block back here when the app releases it (the deallocator
/// ``ResponseBuffers`` hands out), and the next large body takes it if it fits
/// (``room(for:mayWait:)``), cut to its `Content-Length`. Peak memory stays what it was without the
/// recycler, because a block is kept only while it can stand in for one about to be allocated:
/// - one block at most, the larger when two come back;
/// - none while a large body grows in memory of its own (a body that found no block to take):
///   a block given back then is freed at once, as the block a body does not fit;
/// - a body announced while the app still holds a large body (an observer that starts the next
///   request before it returns) waits for that body's block: it arrives into a block of its own
///   meanwhile, uncounted, and moves into the app's block the moment it comes back, unless a
///   quarter of it is in by then (only the pages written so far were touched);
/// - for ``keepsFor`` only: an app that asks for its next large body at once reuses the
///   memory, one that downloaded one large file does not keep its size.
final class BodyBlockRecycler: Sendable {
    /// A malloc'd block, owned by whoever holds this value. `@unchecked Sendable`: it moves
    /// between threads under the recycler's lock, and nobody else holds the pointer.
    struct Block: @unchecked Sendable {
        let start: UnsafeMutableRawPointer
        let capacity: Int
    }

    /// Blocks smaller than this are freed as usual: malloc's heap reuses them without new faults.
    static let smallestKept = 1 << 20

    /// How long a block waits for a body to take it before it is freed; settable for tests,
    /// whose runs a loaded machine can slow past a second between two requests.
    var keepsFor: Duration {
        get { state.withLock { $0.keepsFor } }
        set { state.withLock { $0.keepsFor = newValue } }
    }

    /// Large bodies' blocks the app holds now: for tests, which wait for the app to let one go.
    var blocksWithApp: Int { state.withLock { $0.blocksWithApp } }

    private struct State {
        var kept: Block?
        var keptAt = MonotonicInstant.now
        var expiryScheduled = false
        /// Large bodies growing in memory of their own, which a kept block would sit beside.
        var bodiesInFreshMemory = 0
        /// Large bodies' blocks the app holds, each of which comes back here when let go.
        var blocksWithApp = 0
        var keepsFor: Duration
    }

    private let state: Locked<State>

    init(keepsFor: Duration = .seconds(1)) {
        state = Locked(State(keepsFor: keepsFor))
    }

    deinit {
        if let block = state.withLock({ $0.kept }) { free(block.start) }
    }

    /// Where a large body is to grow.
    enum Room {
        /// In the kept block, the caller's now.
        case kept(Block)
        /// In memory of its own; the body counts as growing there until
        /// ``freshBodyEnded()``.
        case fresh
        /// In memory of its own for now, not counted, looking for a kept block with every
        /// chunk (``take(fitting:)``): a large body's block is with the app, which may let it go
        /// any moment (an observer that starts the next request before it returns holds the last
        /// body until then).
        case later
    }

    /// Room for a body of at least `total` bytes, ``smallestKept`` or more: the kept block if it
    /// fits; else, with `mayWait` and a large body's block with the app, ``Room/later``; else
    /// fresh memory. A kept block that does not fit is freed rather than kept beside the body.
    func room(for total: Int, mayWait: Bool = false) -> Room {
        let (room, unwanted): (Room, Block?) = state.withLock { state in
            let kept = state.kept
            state.kept = nil
            if let kept, kept.capacity >= total { return (.kept(kept), nil) }
            if mayWait, state.blocksWithApp > 0 { return (.later, kept) }
            state.bodiesInFreshMemory += 1
            return (.fresh, kept)
        }
        if let unwanted { free(unwanted.start) }
        return room
    }

    /// The kept block, if one is kept and `total` bytes fit in it; nothing else changes.
    func take(fitting total: Int) -> Block? {
        state.withLock { state in
            guard let kept = state.kept, kept.capacity >= total else { return nil }
            state.kept = nil
            return kept
        }
    }

    /// A large body's block goes to the app, to come back through ``appLetGo(_:)``.
    func handedToApp() {
        state.withLock { $0.blocksWithApp += 1 }
    }

    /// The app let go of a block ``handedToApp()`` counted: it is kept, or freed (see
    /// ``keep(_:)``). Any thread.
    func appLetGo(_ block: Block) {
        state.withLock { $0.blocksWithApp -= 1 }
        keep(block)
    }

    /// A body that ``room(for:mayWait:)`` sent to fresh memory is complete or gone.
    func freshBodyEnded() {
        state.withLock { $0.bodiesInFreshMemory -= 1 }
    }

    /// Keeps `block`, or frees it: when it is too small to be worth keeping, when a larger one is
    /// kept, or while a large body grows in fresh memory. Any thread.
    func keep(_ block: Block) {
        guard block.capacity >= Self.smallestKept else { return free(block.start) }
        let (unwanted, expiry): (Block?, Duration?) = state.withLock { state in
            if state.bodiesInFreshMemory > 0 { return (block, nil) }
            let unwanted: Block?
            if let kept = state.kept, kept.capacity > block.capacity {
                unwanted = block
            } else {
                unwanted = state.kept
                state.kept = block
                state.keptAt = .now
            }
            defer { state.expiryScheduled = true }
            return (unwanted, state.expiryScheduled ? nil : state.keepsFor)
        }
        if let unwanted { free(unwanted.start) }
        if let expiry { scheduleExpiry(after: expiry) }
    }

    /// Frees the kept block now, as the client closes.
    func freeKept() {
        if let block = state.withLock({ state in
            defer { state.kept = nil }
            return state.kept
        }) {
            free(block.start)
        }
    }

    /// Whether a block is kept, for tests.
    var isKeeping: Bool { state.withLock { $0.kept != nil } }

    /// One timer at a time: when it fires, a block kept for ``keepsFor`` is freed, and one kept
    /// since waits out the rest of its time.
    private func scheduleExpiry(after delay: Duration) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(delay.clampedNanoseconds))) {
            [weak self] in self?.expire()
        }
    }

    private func expire() {
        let now = MonotonicInstant.now
        let (expired, remaining): (Block?, Duration?) = state.withLock { state in
            guard let kept = state.kept else {
                state.expiryScheduled = false
                return (nil, nil)
            }
            let waited = now - state.keptAt
            guard waited < state.keepsFor else {
                state.kept = nil
                state.expiryScheduled = false
                return (kept, nil)
            }
            return (nil, state.keepsFor - waited)
        }
        if let expired { free(expired.start) }
        if let remaining { scheduleExpiry(after: remaining) }
    }
}
