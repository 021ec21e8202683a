#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ConnectFutures

/// The messages a WebSocket received and its reader has not taken, shared by the transfer thread
/// (which adds them) and the reading task (which takes them).
///
/// Two lists behind two locks: the transfer thread adds a read's messages to the inbox's list
/// under one lock, and the reader takes that whole list at once into its own, from which it
/// takes one message at a time under a lock of its own that nobody else wants. The two sides
/// meet once per batch, not once per message, where they contended for one lock.
///
/// Bounded: once the bytes held (both lists, the messages the reader took from its list
/// included until it comes back for more) pass the limit, ``deliver(_:)`` says so and the
/// transfer thread stops reading the socket; the reader that comes back for more with the bytes
/// held at or below half the limit is told to ask for reading to resume. The end of the
/// connection is recorded once, after the last message.
final class WebSocketInbox: Sendable {
    /// What the transfer thread and the reader share.
    private struct State {
        var messages: [WebSocketMessage] = []
        var heldBytes = 0
        var readingPaused = false
        /// The transfer thread waits for the reader to come back for a message after taking
        /// every one it was given (see ``deliverBeforeFailing(_:)``).
        var waitsForReader = false
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        var ending: WebSocketEnding?
    }

    /// The reader's list: the inbox's list as it last took it.
    private struct Taken {
        var messages: [WebSocketMessage] = []
        /// The next message to take from `messages`.
        var next = 0
        /// The bytes of the messages taken from `messages`, still counted as held.
        var bytes = 0
    }

    private let state = Locked(State())
    private let taken = Locked(Taken())
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

    /// Adds the messages of `batch` in order (the first to a reader waiting for one), under one
    /// lock however many there are, and empties `batch`, its capacity kept for the next. `true`
    /// when the bytes held are now over the limit: stop reading until ``take(resuming:)`` asks
    /// again.
    func deliver(_ batch: inout [WebSocketMessage]) -> Bool {
        guard !batch.isEmpty else { return false }
        return deliver(&batch, beforeFailing: false)
    }

    /// Adds the last messages read before the server broke the protocol, as ``deliver(_:)``
    /// does, and says whether the reader has yet to come back for a message after taking every
    /// one it was given: then the connection fails when it does (``take(resuming:)`` runs its
    /// `resuming`), so that the application handles, and answers, every message the server sent
    /// before the violation, as a client reading one frame after another would. `false`: the
    /// reader waits with nothing left, and the connection fails at once.
    func deliverBeforeFailing(_ batch: inout [WebSocketMessage]) -> Bool {
        deliver(&batch, beforeFailing: true)
    }

    private func deliver(_ batch: inout [WebSocketMessage], beforeFailing: Bool) -> Bool {
        let bytes = batch.reduce(0) { $0 + Self.size(of: $1) }
        let (reader, answer) = state.withLock { state -> (CheckedContinuation<WebSocketMessage?, any Error>?, Bool) in
            if beforeFailing {
                state.waitsForReader = state.reader == nil || !batch.isEmpty
                guard !batch.isEmpty else { return (nil, state.waitsForReader) }
            }
            let reader = state.reader
            state.reader = nil
            if reader == nil, state.messages.isEmpty {
                // The batch becomes the inbox's list, and the inbox's emptied list the batch.
                swap(&state.messages, &batch)
            } else {
                state.messages.append(contentsOf: reader == nil ? batch[...] : batch.dropFirst())
            }
            state.heldBytes += reader == nil ? bytes : bytes - Self.size(of: batch[0])
            // Set here, cleared only by the reader that asks for reading to resume: messages
            // delivered while reading is paused (from bytes already read) leave it paused.
            if state.heldBytes > limit { state.readingPaused = true }
            return (reader, beforeFailing ? state.waitsForReader : state.readingPaused)
        }
        // Not swapped when a reader waited: its message is still the batch's first.
        reader?.resume(returning: batch[0])
        batch.removeAll(keepingCapacity: true)
        return answer
    }

    /// Records how the connection ended; a waiting reader gets the end at once, a reader with
    /// messages left gets it after them.
    func end(_ ending: WebSocketEnding) {
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

    /// Whether a reader waits for the next message.
    var hasWaitingReader: Bool {
        state.withLock { $0.reader != nil }
    }

    /// How the connection ended, once it has.
    var ending: WebSocketEnding? {
        state.withLock { $0.ending }
    }

    // MARK: The reader

    /// What the reader gets now: a message, the end (`nil` message), or nothing yet (it waits).
    private enum Outcome {
        case message(WebSocketMessage)
        case ended(WebSocketEnding)
        case waits
        /// The reading task was cancelled before it waited.
        case cancelled
    }

    /// The next message, waiting for one; `nil` after a closing handshake, the connection's
    /// error after any other end. `resuming` runs when reading was paused and the reader has
    /// taken enough for it to go on, and when the reader comes back with nothing left after a
    /// violation (``deliverBeforeFailing(_:)``).
    func take(resuming: () -> Void) async throws -> WebSocketMessage? {
        let (outcome, resumes) = takeNow(orWait: nil)
        if resumes { resuming() }
        if case .message(let message) = outcome { return message }
        return try await withCheckedThrowingContinuation { continuation in
            let (outcome, resumes) = takeNow(orWait: continuation)
            if resumes { resuming() }
            switch outcome {
            case .message(let message): continuation.resume(returning: message)
            case .ended(.closed): continuation.resume(returning: nil)
            case .ended(.failed(let error)): continuation.resume(throwing: error)
            case .cancelled: continuation.resume(throwing: ConnectError.cancelled)
            case .waits: break
            }
        }
    }

    /// The next message without waiting, if one is held and the connection has not ended:
    /// the reader's quick path, which needs no cancellation handler. `resuming` as in
    /// ``take(resuming:)``.
    func takeIfHeld(resuming: () -> Void) -> WebSocketMessage? {
        let (outcome, resumes) = takeNow(orWait: nil)
        if resumes { resuming() }
        guard case .message(let message) = outcome else { return nil }
        return message
    }

    /// A message from the reader's list; when it is used up, the inbox's list in its place
    /// (the bytes the reader took no longer held, and reading resumed if it may be). Nothing
    /// there: the end, or with `continuation` the reader waits (unless its task was cancelled).
    /// Whether reading is to resume comes beside.
    private func takeNow(orWait continuation: CheckedContinuation<WebSocketMessage?, any Error>?) -> (Outcome, Bool) {
        taken.withLock { taken -> (Outcome, Bool) in
            if taken.next < taken.messages.count {
                return (.message(Self.next(of: &taken)), false)
            }
            return state.withLock { state -> (Outcome, Bool) in
                state.heldBytes -= taken.bytes
                taken.bytes = 0
                taken.next = 0
                taken.messages.removeAll(keepingCapacity: true)
                let resumes = state.readingPaused && state.heldBytes <= limit / 2
                if resumes { state.readingPaused = false }
                if !state.messages.isEmpty {
                    swap(&taken.messages, &state.messages)
                    return (.message(Self.next(of: &taken)), resumes)
                }
                if let ending = state.ending { return (.ended(ending), resumes) }
                // Every message before a violation taken: the connection may fail now.
                let caughtUp = state.waitsForReader
                state.waitsForReader = false
                guard let continuation else { return (.waits, resumes || caughtUp) }
                // A task cancelled before it waits: its cancellation handler found no reader.
                if Task.isCancelled { return (.cancelled, resumes || caughtUp) }
                state.reader = continuation
                return (.waits, resumes || caughtUp)
            }
        }
    }

    /// The reader's next message, its place in the list emptied so that the list holds no
    /// message the reader has.
    private static func next(of taken: inout Taken) -> WebSocketMessage {
        var message = WebSocketMessage.text("")
        swap(&message, &taken.messages[taken.next])
        taken.next += 1
        taken.bytes += size(of: message)
        return message
    }

    /// A reader waiting now gives up (its task was cancelled): it gets `error`.
    func abandonWaitingReader(with error: any Error) {
        state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            defer { state.reader = nil }
            return state.reader
        }?.resume(throwing: error)
    }
}
