import Synchronization

/// A value behind a mutex, that ThreadSanitizer understands.
///
/// `Synchronization.Mutex` alone is invisible to ThreadSanitizer on Linux (its futex lock lives
/// in the uninstrumented standard library), so every access it guards is reported as a race.
/// An acquiring load on entry and a releasing store on exit of one atomic give the sanitizer the
/// happens-before edge it needs; on x86 and ARM64 both are plain loads and stores, so the cost
/// is nil. Shared by every module of this package.
@usableFromInline
package struct Locked<State: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<State>
    @usableFromInline let handOff = Atomic<UInt8>(0)

    @inlinable
    package init(_ initial: consuming sending State) {
        mutex = Mutex(initial)
    }

    @inlinable
    package borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
            _ = handOff.load(ordering: .acquiring)
            defer { handOff.store(0, ordering: .releasing) }
            return try body(&state)
        }
    }

    /// Runs `body` if the lock is free now; `nil` without waiting if another thread holds it
    /// (or this one: the lock is not recursive).
    @inlinable
    package borrowing func withLockIfAvailable<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result? {
        try mutex.withLockIfAvailable { (state: inout sending State) throws(Failure) -> sending Result in
            _ = handOff.load(ordering: .acquiring)
            defer { handOff.store(0, ordering: .releasing) }
            return try body(&state)
        }
    }
}
