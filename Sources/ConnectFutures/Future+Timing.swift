import Dispatch
import Synchronization

extension Future {
    /// A future that completes like this one, `duration` later. The wait blocks no thread.
    ///
    /// Cancelling it during the wait fails it at once with `CancellationError()`.
    public func delay(_ duration: Duration, on queue: DispatchQueue = .global()) -> Future<Value> {
        let child = Storage(following: storage)
        storage.append { [storage] in
            let pending = TimerPayload((child, storage.resultOfCompleted))
            queue.asyncAfter(deadline: .now() + duration.dispatchInterval) {
                guard let (child, result) = pending.take() else { return }
                child.completeAndRun(result)
            }
            Future(storage: child).observe { _ in _ = pending.take() }
            return nil
        }
        return Future(storage: child)
    }

    /// A future that completes like this one, or fails with ``FutureError/timedOut(after:)``
    /// and cancels this one if `duration` passes first.
    public func timeout(after duration: Duration, on queue: DispatchQueue = .global()) -> Future<Value> {
        if storage.completedResult != nil { return self }
        let source = storage
        let child = Storage(following: source)
        source.append {
            child.completeInChain(source.resultOfCompleted)
        }
        let pending = TimerPayload((child, source))
        queue.asyncAfter(deadline: .now() + duration.dispatchInterval) {
            guard let (child, source) = pending.take(),
                child.store(.failure(FutureError.timedOut(after: duration)))
            else { return }
            source.cancel()
            child.runWaitingWhereTheyBelong()
        }
        Future(storage: child).observe { _ in _ = pending.take() }
        return Future(storage: child)
    }

    /// Runs `attempt` and, while it fails and `shouldRetry` agrees, runs it again, up to
    /// `attempts` times in all, waiting `delay` between tries.
    ///
    /// ```swift
    /// Future.retry(attempts: 3, delay: .milliseconds(200)) { fetchStatus() }
    /// ```
    /// Cancelling the returned future cancels the attempt in flight and starts no other.
    public static func retry(
        attempts: Int,
        delay: Duration = .zero,
        while shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true },
        _ attempt: @escaping @Sendable () -> Future<Value>
    ) -> Future<Value> {
        @Sendable func run(_ number: Int) -> Future<Value> {
            attempt().recover { error -> Future<Value> in
                guard number < attempts, !(error is CancellationError), shouldRetry(error) else {
                    throw error
                }
                if delay <= .zero { return run(number + 1) }
                return Future<Void>(value: ()).delay(delay).flatMap { run(number + 1) }
            }
        }
        return run(1)
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `0...Int64.max` (shared by every module of this package).
    package var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .max }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Milliseconds, fractional, for logs.
    package var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }

    /// The duration for Dispatch, clamped to what `DispatchTimeInterval` holds.
    package var dispatchInterval: DispatchTimeInterval {
        let nanoseconds = clampedNanoseconds
        return nanoseconds == .max ? .never : .nanoseconds(Int(nanoseconds))
    }
}

/// What a timer needs when it fires; taken (and so released) by whichever comes first, the timer
/// or the future's completion, so a long timer does not keep a finished future's value alive.
final class TimerPayload<Payload: Sendable>: Sendable {
    private let payload: Locked<Payload?>

    init(_ payload: Payload) {
        self.payload = Locked(payload)
    }

    func take() -> Payload? {
        payload.withLock { payload in
            defer { payload = nil }
            return payload
        }
    }
}
