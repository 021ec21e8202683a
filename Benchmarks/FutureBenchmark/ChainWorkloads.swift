import ConnectFutures
import NIOCore
import NIOEmbedded

/// Chains of ten steps, built and run on one thread, in each implementation.
enum ChainWorkloads {
    static let steps = 10

    // MARK: ConnectFutures

    @inline(never)
    static func connectMapCompleted() {
        var future = Future(value: 0)
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.observe { blackHole($0) }
    }

    @inline(never)
    static func connectMapPending() {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.observe { blackHole($0) }
        promise.succeed(0)
    }

    @inline(never)
    static func connectFlatMap() {
        var future = Future(value: 0)
        for _ in 0..<steps { future = future.flatMap { Future(value: $0 &+ 1) } }
        future.observe { blackHole($0) }
    }

    // MARK: SwiftNIO

    @inline(never)
    static func nioMapCompleted(_ loop: EmbeddedEventLoop) {
        var future = loop.makeSucceededFuture(0)
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.whenComplete { blackHole($0) }
    }

    @inline(never)
    static func nioMapPending(_ loop: EmbeddedEventLoop) {
        let promise = loop.makePromise(of: Int.self)
        var future = promise.futureResult
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.whenComplete { blackHole($0) }
        promise.succeed(0)
    }

    @inline(never)
    static func nioFlatMap(_ loop: EmbeddedEventLoop) {
        var future = loop.makeSucceededFuture(0)
        for _ in 0..<steps { future = future.flatMap { loop.makeSucceededFuture($0 &+ 1) } }
        future.whenComplete { blackHole($0) }
    }

    // MARK: The naive Mutex future

    @inline(never)
    static func naiveMapCompleted() {
        var future = NaiveFuture<Int>(result: .success(0))
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.observe { blackHole($0) }
    }

    @inline(never)
    static func naiveMapPending() {
        let first = NaiveFuture<Int>()
        var future = first
        for _ in 0..<steps { future = future.map { $0 &+ 1 } }
        future.observe { blackHole($0) }
        first.complete(.success(0))
    }

    @inline(never)
    static func naiveFlatMap() {
        var future = NaiveFuture<Int>(result: .success(0))
        for _ in 0..<steps { future = future.flatMap { NaiveFuture(result: .success($0 &+ 1)) } }
        future.observe { blackHole($0) }
    }

    // MARK: async/await

    @inline(never)
    static func asyncStep(_ value: Int) async -> Int { value &+ 1 }

    @inline(never)
    static func asyncChain() async {
        var value = 0
        for _ in 0..<steps { value = await asyncStep(value) }
        blackHole(value)
    }
}
