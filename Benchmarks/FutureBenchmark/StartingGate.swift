import Synchronization

/// Holds two threads until both are running, then lets them go together.
final class StartingGate: Sendable {
    let ready = Atomic<Int>(0)
    let open = Atomic<Bool>(false)
}
