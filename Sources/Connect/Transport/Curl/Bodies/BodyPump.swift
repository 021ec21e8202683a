import CCurl
import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Moves a streamed request body (see ``StreamedBody``) from the task that iterates its sequence
/// to libcurl's read callback on the transfer thread, no faster than libcurl sends it.
///
/// The decisions are ``UploadBuffer``'s; this class adds the two waits. libcurl's read callback
/// finding nothing pauses the transfer, and the next deposit asks the transfer loop to resume it.
/// A producer that filled the buffer suspends until the reader has made room. The producer task
/// starts at the first read, and a rewind (libcurl sending the body again) starts a new pass of
/// a replayable body; a one-time body cannot rewind once read.
final class BodyPump: Sendable {
    /// Where one pass of the producer deposits. A rewind starts a new pass, and a stale pass's
    /// deposits are refused.
    struct Inlet: Sendable {
        let pump: BodyPump
        let pass: Int
        /// Compresses the bytes on their way to the pump (``RequestBody/compressed(_:)``);
        /// `nil` hands them on as they are.
        var encoder: BodyEncoder? = nil

        /// Hands `chunk` on, waiting while the buffer is full. Returns `false` when the transfer
        /// no longer wants bytes from this pass: stop iterating.
        func deposit<Chunk: DataProtocol>(_ chunk: Chunk) async -> Bool {
            guard !chunk.isEmpty else { return true }
            if let encoder { return await encoder.deposit(Self.data(chunk)) }
            return await pump.deposit(Self.data(chunk), pass: pass)
        }

        private static func data<Chunk: DataProtocol>(_ chunk: Chunk) -> Data {
            if let data = chunk as? Data { return data }
            var data = Data(capacity: chunk.count)
            for region in chunk.regions {
                region.withUnsafeBytes { data.append(contentsOf: $0) }
            }
            return data
        }
    }

    private struct State {
        var buffer: UploadBuffer
        var pass = 0
        var started = false
        var closed = false
        var producer: Task<Void, Never>?
        var spaceWaiter: CheckedContinuation<Bool, Never>?
    }

    /// Bytes that may wait between the producer and libcurl.
    static let limit = 256 << 10

    let body: StreamedBody
    private let state: Locked<State>
    /// Asks the transfer loop to resume the paused transfer; called off the transfer thread.
    private let resumeTransfer: @Sendable () -> Void

    init(body: StreamedBody, resumeTransfer: @escaping @Sendable () -> Void) {
        self.body = body
        self.resumeTransfer = resumeTransfer
        state = Locked(State(buffer: UploadBuffer(limit: Self.limit, declaredCount: body.count)))
    }

    /// Why the body failed, if it did: the sequence's own error, a size other than declared, or
    /// a one-time body asked for a second time.
    var failure: (any Error)? { state.withLock { $0.buffer.failure } }

    // MARK: The transfer thread

    /// libcurl's read callback: bytes, 0 at the end, a pause, or an abort.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let (read, waiter, pour) = state.withLock {
            state -> (UploadBuffer.Read, CheckedContinuation<Bool, Never>?, StreamedBody.Pour?) in
            var pour: StreamedBody.Pour?
            if !state.started, !state.closed {
                state.started = true
                pour = body.takePass()
                if pour == nil {
                    state.buffer.fail(
                        ConnectError.transport(
                            TransportFailure(
                                .bodyNotReplayable,
                                "The request body is a one-time stream that was already sent; it cannot be sent again",
                                requestSent: false)))
                }
            }
            let read = state.buffer.read(into: buffer)
            var waiter: CheckedContinuation<Bool, Never>?
            if state.buffer.hasRoom {
                waiter = state.spaceWaiter
                state.spaceWaiter = nil
            }
            return (read, waiter, pour)
        }
        waiter?.resume(returning: true)
        if let pour { startProducer(pour) }
        switch read {
        case .bytes(let count): return count
        case .pause: return ccurl_readfunc_pause
        case .end: return 0
        case .abort: return Int(CURL_READFUNC_ABORT)
        }
    }

    /// libcurl wants to send the body again from its start. Returns whether it can.
    func rewind() -> Bool {
        let (canRewind, stale) = state.withLock {
            state -> (Bool, (Task<Void, Never>?, CheckedContinuation<Bool, Never>?)) in
            guard state.started else { return (true, (nil, nil)) }
            guard body.isReplayable, !state.closed else { return (false, (nil, nil)) }
            let stale = (state.producer, state.spaceWaiter)
            state.pass += 1
            state.started = false
            state.producer = nil
            state.spaceWaiter = nil
            state.buffer = UploadBuffer(limit: Self.limit, declaredCount: body.count)
            return (true, stale)
        }
        stale.0?.cancel()
        stale.1?.resume(returning: false)
        return canRewind
    }

    /// The transfer ended: stop the producer (its sequence sees a cancelled task) and let go
    /// of what waits.
    func close() {
        let (producer, waiter) = state.withLock { state -> (Task<Void, Never>?, CheckedContinuation<Bool, Never>?) in
            state.closed = true
            defer {
                state.producer = nil
                state.spaceWaiter = nil
            }
            return (state.producer, state.spaceWaiter)
        }
        producer?.cancel()
        waiter?.resume(returning: false)
    }

    private func startProducer(_ pour: @escaping StreamedBody.Pour) {
        let inlet = state.withLock { Inlet(pump: self, pass: $0.pass) }
        let producer = Task {
            do {
                try await pour(inlet)
                finish(pass: inlet.pass, failure: nil)
            } catch {
                finish(pass: inlet.pass, failure: error)
            }
        }
        let closed = state.withLock { state in
            if !state.closed, state.pass == inlet.pass { state.producer = producer }
            return state.closed
        }
        if closed { producer.cancel() }
    }

    // MARK: The producer

    private func deposit(_ chunk: Data, pass: Int) async -> Bool {
        let (accepted, resumes, waits) = state.withLock { state -> (Bool, Bool, Bool) in
            guard !state.closed, state.pass == pass else { return (false, false, false) }
            let deposit = state.buffer.deposit(chunk)
            return (state.buffer.failure == nil, deposit.resumesReader, deposit.producerWaits)
        }
        if resumes { resumeTransfer() }
        guard accepted else { return false }
        guard waits else { return true }
        return await withCheckedContinuation { continuation in
            let goOn = state.withLock { state -> Bool? in
                guard !state.closed, state.pass == pass else { return false }
                if state.buffer.hasRoom { return true }
                state.spaceWaiter = continuation
                return nil
            }
            if let goOn { continuation.resume(returning: goOn) }
        }
    }

    private func finish(pass: Int, failure: (any Error)?) {
        let resumes = state.withLock { state -> Bool in
            guard !state.closed, state.pass == pass else { return false }
            if let failure { return state.buffer.fail(failure).resumesReader }
            return state.buffer.finish()
        }
        if resumes { resumeTransfer() }
    }
}
