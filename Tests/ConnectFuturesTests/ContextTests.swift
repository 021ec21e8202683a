import Dispatch
import Foundation
import Testing

@testable import ConnectFutures

@Suite("Context")
struct ContextTests {

    static func queue(_ label: String) -> (DispatchQueue, DispatchSpecificKey<String>) {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
        return (queue, key)
    }

    @Test func everyCallbackRunsOnTheBoundQueue() async throws {
        let (queue, key) = Self.queue("bound")
        let promise = Promise<Int>(callbackQueue: queue)
        let seen = Recorder<String>()
        let mapped = promise.future.map { value -> Int in
            seen.append("map:\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")")
            return value + 1
        }
        mapped.observe { _ in seen.append("before:\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")") }
        promise.succeed(1)  // completed from this thread, not the queue
        #expect(try await mapped.value == 2)
        // Added after completion: still dispatched to the queue, not run here.
        await withCheckedContinuation { continuation in
            mapped.map { $0 }.observe { _ in
                seen.append("after:\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")")
                continuation.resume()
            }
        }
        #expect(seen.all == ["map:bound", "before:bound", "after:bound"])
    }

    @Test func deliveredMovesCallbacksToAnotherQueue() async {
        let (queue, key) = Self.queue("target")
        let label = await withCheckedContinuation { continuation in
            Future(value: 1).delivered(on: queue).observe { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }
        }
        #expect(label == "target")
        let bound = Promise<Int>(callbackQueue: queue).future
        #expect(bound.delivered(on: queue).storage === bound.storage)
    }

    @Test func theChainInheritsTheCancellationError() async {
        let context = FutureContext(cancellationError: TestError(code: 42))
        let promise = Promise<Int>(context: context)
        let end = promise.future.map { $0 }.flatMap { Future(value: $0) }
        end.cancel()
        #expect(await error(of: end) as? TestError == TestError(code: 42))
    }
}
