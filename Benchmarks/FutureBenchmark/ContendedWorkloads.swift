import AllocationCounter
import ConnectFutures
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// One thread completes a million promises while another attaches one observer to each: what
/// happens when a callback queue completes futures that another thread is still chaining.
/// `forward`: both walk the promises in the same order, so they meet at every promise;
/// `meeting`: they start at opposite ends and cross in the middle.
enum ContendedWorkloads {
    static let promises = 1_000_000

    enum Direction {
        case forward
        case meeting
    }

    /// The two sides of the workload for one implementation.
    protocol Subject: Sendable {
        init(count: Int)
        func complete(_ index: Int)
        func observe(_ index: Int)
    }

    struct Connect: Subject {
        let promises: [Promise<Int>]
        let futures: [Future<Int>]

        init(count: Int) {
            promises = (0..<count).map { _ in Promise<Int>() }
            futures = promises.map(\.future)
        }

        func complete(_ index: Int) { promises[index].succeed(index) }
        func observe(_ index: Int) { futures[index].observe { blackHole($0) } }
    }

    struct Naive: Subject {
        let futures: [NaiveFuture<Int>]

        init(count: Int) {
            futures = (0..<count).map { _ in NaiveFuture<Int>() }
        }

        func complete(_ index: Int) { futures[index].complete(.success(index)) }
        func observe(_ index: Int) { futures[index].observe { blackHole($0) } }
    }

    /// The naive future behind a producer handle, as `NaivePromise` describes.
    struct NaiveWithHandle: Subject {
        let promises: [NaivePromise<Int>]
        let futures: [NaiveFuture<Int>]

        init(count: Int) {
            promises = (0..<count).map { _ in NaivePromise<Int>() }
            futures = promises.map(\.future)
        }

        func complete(_ index: Int) { promises[index].complete(.success(index)) }
        func observe(_ index: Int) { futures[index].observe { blackHole($0) } }
    }

    /// NIO's promises belong to an event loop: they are completed there, and a callback added
    /// from another thread is handed to the loop.
    struct NIO: Subject {
        static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let promises: [EventLoopPromise<Int>]

        init(count: Int) {
            let loop = Self.group.next()
            promises = (0..<count).map { _ in loop.makePromise(of: Int.self) }
        }

        func complete(_ index: Int) { promises[index].succeed(index) }
        func observe(_ index: Int) { promises[index].futureResult.whenComplete { blackHole($0) } }
        var loop: any EventLoop { promises[0].futureResult.eventLoop }
    }

    /// One run: time per promise, both threads released at once and waited for.
    static func run<S: Subject>(_ subject: S, _ direction: Direction, completeOn loop: (any EventLoop)? = nil) -> Sample
    {
        let count = promises
        let gate = StartingGate()
        let finished = DispatchGroup()
        func whenReleased(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
            {
                gate.ready.add(1, ordering: .relaxed)
                while !gate.open.load(ordering: .acquiring) {}
                body()
                finished.leave()
            }
        }
        let completer = whenReleased {
            for index in 0..<count { subject.complete(index) }
        }
        let observer = whenReleased {
            switch direction {
            case .forward: for index in 0..<count { subject.observe(index) }
            case .meeting: for index in (0..<count).reversed() { subject.observe(index) }
            }
        }
        finished.enter()
        finished.enter()
        if let loop {
            loop.execute(completer)
        } else {
            Thread.detachNewThread(completer)
        }
        Thread.detachNewThread(observer)
        while gate.ready.load(ordering: .relaxed) < 2 {}
        let allocationsBefore = connect_allocation_count()
        let start = ContinuousClock.now
        gate.open.store(true, ordering: .releasing)
        finished.wait()
        let elapsed = ContinuousClock.now - start
        return Sample(elapsed: elapsed, allocations: connect_allocation_count() - allocationsBefore, steps: count)
    }
}
