import Synchronization

extension Future {
    /// A future of both values, once both futures succeed; it fails as soon as either fails.
    ///
    /// ```swift
    /// user.zip(settings).observe { result in /* Result<(User, Settings), Error> */ }
    /// ```
    /// Cancelling it cancels both.
    public func zip<Other: Sendable>(_ other: Future<Other>) -> Future<(Value, Other)> {
        let child = Future<(Value, Other)>.Storage(
            upstream: UpstreamGroup([storage, other.storage]), context: storage.context)
        other.storage.append {
            guard case .failure(let error) = other.storage.resultOfCompleted else { return nil }
            return child.complete(.failure(error), from: other.storage)
        }
        storage.append { [storage] in
            switch storage.resultOfCompleted {
            case .failure(let error):
                return child.completeInChain(.failure(error))
            case .success(let value):
                other.storage.append {
                    guard case .success(let otherValue) = other.storage.resultOfCompleted else { return nil }
                    return child.complete(.success((value, otherValue)), from: other.storage)
                }
                return nil
            }
        }
        return Future<(Value, Other)>(storage: child)
    }

    /// A future of all three values, once all three succeed; it fails as soon as any fails.
    public func zip<Second: Sendable, Third: Sendable>(
        _ second: Future<Second>,
        _ third: Future<Third>
    ) -> Future<(Value, Second, Third)> {
        zip(second).zip(third).map { pair, third in (pair.0, pair.1, third) }
    }

    /// A future of every value, in the order of `futures`, once all succeed; it fails as soon as
    /// any fails (the others keep running). An empty array gives `[]` at once.
    /// Cancelling it cancels every future in `futures`.
    public static func whenAll(_ futures: [Future<Value>]) -> Future<[Value]> {
        if futures.isEmpty { return Future<[Value]>(value: []) }
        let child = Future<[Value]>.Storage(
            upstream: UpstreamGroup(futures.map(\.storage)), context: futures[0].storage.context)
        let gathered = Gathered<Value>(count: futures.count)
        for (index, future) in futures.enumerated() {
            future.storage.append {
                switch future.storage.resultOfCompleted {
                case .failure(let error):
                    return child.complete(.failure(error), from: future.storage)
                case .success(let value):
                    guard let all = gathered.store(value, at: index) else { return nil }
                    return child.complete(.success(all), from: future.storage)
                }
            }
        }
        return Future<[Value]>(storage: child)
    }

    /// A future that completes like whichever of `futures` completes first, success or failure;
    /// the others are then cancelled. It fails with ``FutureError/noFutures`` if `futures` is empty.
    public static func first(of futures: [Future<Value>]) -> Future<Value> {
        if futures.isEmpty { return Future(error: FutureError.noFutures) }
        let child = Storage(upstream: UpstreamGroup(futures.map(\.storage)), context: futures[0].storage.context)
        for future in futures {
            future.storage.append {
                child.complete(future.storage.resultOfCompleted, from: future.storage)
            }
        }
        Future(storage: child).observe { _ in
            for future in futures { future.cancel() }
        }
        return Future(storage: child)
    }
}

/// Collects `whenAll`'s values by index; hands back the array when the last one arrives.
final class Gathered<Value: Sendable>: Sendable {
    private let state: Locked<(values: [Value?], missing: Int)>

    init(count: Int) {
        state = Locked((Array(repeating: nil, count: count), count))
    }

    func store(_ value: Value, at index: Int) -> [Value]? {
        state.withLock { state in
            state.values[index] = value
            state.missing -= 1
            return state.missing == 0 ? state.values.map { $0! } : nil
        }
    }
}
