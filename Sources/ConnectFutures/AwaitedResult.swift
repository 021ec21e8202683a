/// Where a future's result meets the task awaiting it, whichever comes first: the result,
/// delivered by the future's observer, or the task's continuation.
///
/// `value` observes the future before the task hops onto its awaiting executor (see
/// ``AwaitingExecutor``), which may take a while when Swift's pool is busy: a result delivered
/// meanwhile waits here, and the task resumes itself at once when it gets here.
final class AwaitedResult<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case delivered(Result<Value, any Error>)
        case waiting(UnsafeContinuation<Value, any Error>)
        case done
    }

    private let state = Locked<State>(.empty)

    init() {}

    /// Gives the future's result to the task: resumes it if it waits, otherwise keeps the result.
    func deliver(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state -> UnsafeContinuation<Value, any Error>? in
            guard case .waiting(let continuation) = state else {
                state = .delivered(result)
                return nil
            }
            state = .done
            return continuation
        }
        waiting?.resume(with: result)
    }

    /// Resumes `continuation` with the result if it came already, otherwise keeps it for
    /// ``deliver(_:)``.
    func resume(_ continuation: UnsafeContinuation<Value, any Error>) {
        let delivered = state.withLock { state -> Result<Value, any Error>? in
            guard case .delivered(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .done
            return result
        }
        if let delivered { continuation.resume(with: delivered) }
    }
}
