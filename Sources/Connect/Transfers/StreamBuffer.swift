import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The chunks between the transfer thread (which offers them) and the consumer (which takes
/// them), bounded by `limit` bytes.
final class StreamBuffer: Sendable {
    private struct State {
        var chunks: [Data] = []
        var first = 0
        var flow: FlowControl
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<Data?, any Error>?
    }

    let limit: Int
    /// Completed with the status and headers at the first chunk, or with the outcome at the end.
    let head: Promise<Response>
    private let state: Locked<State>
    /// Asks the transfer thread to unpause the transfer; set when the transfer is sent.
    private let resumer = Locked<(@Sendable () -> Void)?>(nil)

    init(limit: Int, context: FutureContext) {
        self.limit = max(limit, 16 << 10)
        state = Locked(State(flow: FlowControl(limit: self.limit)))
        head = Promise(context: context)
    }

    /// The most bytes that ever waited unread (for tests of the bound).
    var peakBuffered: Int { state.withLock { $0.flow.peak } }

    /// Slots of the chunk array, read ones included (for tests that read chunks are let go).
    var chunkSlots: Int { state.withLock { $0.chunks.count } }

    func setResumer(_ resume: @escaping @Sendable () -> Void) {
        resumer.withLock { $0 = resume }
    }

    /// On the transfer thread: keeps `bytes`, or answers `false` when the buffer is full (the
    /// transfer then pauses and libcurl offers the same bytes again after it resumes).
    func offer(_ bytes: UnsafeRawBufferPointer, head response: @autoclosure () -> Response) -> Bool {
        if head.future.result == nil { head.succeed(response()) }
        let chunk = Data(bytes)
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Data?, any Error>?) in
            let waiter = state.waiter
            guard state.flow.offer(chunk.count, buffering: waiter == nil) else { return (false, nil) }
            if let waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.chunks.append(chunk)
            return (true, nil)
        }
        waiter?.resume(returning: chunk)
        return accepted
    }

    /// The transfer ended; a failure is thrown to the consumer after the chunks already in.
    func finish(_ outcome: Result<Response, any Error>) {
        head.complete(
            outcome.map {
                Response(
                    statusCode: $0.statusCode, headers: $0.headers, url: $0.url, httpVersion: $0.httpVersion,
                    metrics: $0.metrics)
            })
        // Only a 2xx body streams: another accepted status (a 304, or a 404 a connector
        // accepts) has its body in memory, and it is handed on as the stream's one chunk.
        var unstreamed: Data?
        if case .success(let response) = outcome, !(200..<300).contains(response.statusCode), !response.body.isEmpty {
            unstreamed = response.body
        }
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = outcome.map { _ in () }
            defer { state.waiter = nil }
            guard let unstreamed else { return state.waiter }
            if state.waiter == nil { state.chunks.append(unstreamed) }
            return state.waiter
        }
        if let unstreamed, let waiter {
            waiter.resume(returning: unstreamed)
            return
        }
        switch outcome {
        case .success: waiter?.resume(returning: nil)
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }

    /// The next chunk, `nil` at the end; waits while the buffer is empty.
    func next() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let (ready, resume): (Result<Data?, any Error>?, Bool) = state.withLock { state in
                if state.first < state.chunks.count {
                    // Taken out, not just read: a consumer that never quite catches up would
                    // otherwise keep every chunk it has read alive in the array.
                    let chunk = state.chunks[state.first]
                    state.chunks[state.first] = Data()
                    state.first += 1
                    if state.first == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.first = 0
                    } else if state.first >= 64 {
                        state.chunks.removeFirst(state.first)
                        state.first = 0
                    }
                    return (.success(chunk), state.flow.took(chunk.count))
                }
                if let end = state.end {
                    return (end.map { nil }, false)
                }
                state.waiter = continuation
                return (nil, state.flow.consumerWaits())
            }
            if resume { resumer.withLock { $0 }?() }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
