import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

struct TestError: Error, Equatable {
    var code = 1
}

/// A thread-safe log of events, for asserting order and counts.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// A thread-safe counter that `#expect` can read.
final class Counter: Sendable {
    private let value = Locked(0)
    @discardableResult func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
    var current: Int { value.withLock { $0 } }
}

/// Waits for a future's result without `async` helpers under test.
func outcome<Value>(_ future: Future<Value>) async -> Result<Value, any Error> {
    await withCheckedContinuation { continuation in
        future.observe { continuation.resume(returning: $0) }
    }
}

func error<Value>(of future: Future<Value>) async -> (any Error)? {
    if case .failure(let error) = await outcome(future) { return error }
    return nil
}
