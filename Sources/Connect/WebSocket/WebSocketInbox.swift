#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ConnectFutures

/// The messages a WebSocket received and its reader has not taken, shared by the transfer thread
/// (which adds them) and the reading task (which takes them), behind one lock.
///
/// Bounded: once the bytes held pass the limit, ``deliver(_:)`` says so and the transfer thread
/// stops reading the socket; the reader that takes them below half the limit is told to ask for
/// reading to resume. The end of the connection is recorded once, after the last message.
final class WebSocketInbox: Sendable {
    /// How the messages end, once the connection has.
    enum Ending: Equatable, Sendable {
        /// The closing handshake completed, with the server's code (`nil`: it sent none) and
        /// reason: reading ends without an error.
        case closed(code: UInt16?, reason: String)
        case failed(WebSocketError)
    }

    private struct State {
        var messages: [WebSocketMessage] = []
        /// The next message to take from `messages`.
        var next = 0
        var heldBytes = 0
        var readingPaused = false
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        var ending: Ending?
    }

    private let state = Locked(State())
    /// Bytes held past which reading pauses.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }

    // MARK: The transfer thread

    /// Adds a message, or hands it to a reader waiting for one. `true` when the bytes held are
    /// now over the limit: stop reading until ``take(resuming:)`` asks again.
    func deliver(_ message: WebSocketMessage) -> Bool {
        let (reader, full) = state.withLock { state -> (CheckedContinuation<WebSocketMessage?, any Error>?, Bool) in
            if let reader = state.reader {
                state.reader = nil
                return (reader, false)
            }
            state.messages.append(message)
            state.heldBytes += Self.size(of: message)
            // Set here, cleared only by the reader that asks for reading to resume: a message
            // delivered while reading is paused (from bytes already read) leaves it paused.
            if state.heldBytes > limit { state.readingPaused = true }
            return (nil, state.readingPaused)
        }
        reader?.resume(returning: message)
        return full
    }

    /// Records how the connection ended; a waiting reader gets the end at once, a reader with
    /// messages left gets it after them.
    func end(_ ending: Ending) {
        let reader = state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            guard state.ending == nil else { return nil }
            state.ending = ending
            defer { state.reader = nil }
            return state.reader
        }
        guard let reader else { return }
        switch ending {
        case .closed: reader.resume(returning: nil)
        case .failed(let error): reader.resume(throwing: error)
        }
    }

    /// How the connection ended, once it has.
    var ending: Ending? {
        state.withLock { $0.ending }
    }

    // MARK: The reader

    /// What the reader gets now: a message, the end (`nil` message), or nothing yet (it waits).
    private enum Taken {
        case message(WebSocketMessage, resumesReading: Bool)
        case ended(Ending)
        case waits
        /// The reading task was cancelled before it waited.
        case cancelled
    }

    /// The next message, waiting for one; `nil` after a closing handshake, the connection's
    /// error after any other end. `resuming` runs when reading was paused and the reader has
    /// taken enough for it to go on.
    func take(resuming: () -> Void) async throws -> WebSocketMessage? {
        if case .message(let message, let resumesReading) = takeNow() {
            if resumesReading { resuming() }
            return message
        }
        return try await withCheckedThrowingContinuation { continuation in
            let taken = state.withLock { state -> Taken in
                let taken = Self.takeNow(&state, limit: limit)
                if case .waits = taken {
                    // A task cancelled before it waits: its cancellation handler found no reader.
                    if Task.isCancelled { return .cancelled }
                    state.reader = continuation
                }
                return taken
            }
            switch taken {
            case .message(let message, let resumesReading):
                if resumesReading { resuming() }
                continuation.resume(returning: message)
            case .ended(.closed): continuation.resume(returning: nil)
            case .ended(.failed(let error)): continuation.resume(throwing: error)
            case .cancelled: continuation.resume(throwing: CancellationError())
            case .waits: break
            }
        }
    }

    private func takeNow() -> Taken {
        state.withLock { Self.takeNow(&$0, limit: limit) }
    }

    private static func takeNow(_ state: inout State, limit: Int) -> Taken {
        guard state.next < state.messages.count else {
            return state.ending.map(Taken.ended) ?? .waits
        }
        let message = state.messages[state.next]
        state.next += 1
        if state.next == state.messages.count {
            state.messages.removeAll(keepingCapacity: state.messages.capacity <= 64)
            state.next = 0
        }
        state.heldBytes -= size(of: message)
        let resumes = state.readingPaused && state.heldBytes <= limit / 2
        if resumes { state.readingPaused = false }
        return .message(message, resumesReading: resumes)
    }

    /// A reader waiting now gives up (its task was cancelled): it gets `error`.
    func abandonWaitingReader(with error: any Error) {
        state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            defer { state.reader = nil }
            return state.reader
        }?.resume(throwing: error)
    }
}
