/// Where a future's completion meets the task awaiting it, whichever comes first: the signal
/// that the future completed, given by its observer, or the task's continuation.
///
/// `value` observes the future before the task hops onto its awaiting executor (see
/// ``AwaitingExecutor``), which may take a while when Swift's pool is busy: a completion that
/// comes meanwhile is noted here, and the task resumes itself at once when it gets here.
///
/// Not generic: the resumed task reads the result from the future itself, which has completed
/// by then. Awaiting code is not specialized for the future's value type, and each generic type
/// over it (a class holding the value, its state, the lock, the continuation) would be a
/// look-up in the runtime's metadata caches on every await; concrete types are looked up once.
final class AwaitedCompletion: Sendable {
    private enum State {
        case pending
        case completed
        case waiting(UnsafeContinuation<Void, Never>)
        case done
    }

    private let state = Locked<State>(.pending)

    init() {}

    /// Notes that the future completed: resumes the task if it waits.
    func complete() {
        let waiting = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            guard case .waiting(let continuation) = state else {
                state = .completed
                return nil
            }
            state = .done
            return continuation
        }
        waiting?.resume()
    }

    /// Resumes `continuation` if the future completed already, otherwise keeps it for
    /// ``complete()``.
    func resume(_ continuation: UnsafeContinuation<Void, Never>) {
        let completed = state.withLock { state -> Bool in
            guard case .completed = state else {
                state = .waiting(continuation)
                return false
            }
            state = .done
            return true
        }
        if completed { continuation.resume() }
    }
}
