import Foundation
import Testing

@testable import Connect

/// The bounded inbox between the transfer thread and a WebSocket's reader: reading pauses past
/// the limit, stays paused while messages already read keep arriving, and resumes once the reader
/// comes back for more with the bytes held at or below half (the messages it took into its own
/// list count until then).
struct WebSocketInboxTests {
    static func message(_ bytes: Int) -> WebSocketMessage { .binary(Data(count: bytes)) }

    /// One message as a batch of its own.
    static func deliver(_ message: WebSocketMessage, to inbox: WebSocketInbox) -> Bool {
        var batch = [message]
        return inbox.deliver(&batch)
    }

    @Test func readingPausesPastTheLimitAndResumesBelowHalf() async throws {
        let inbox = WebSocketInbox(limit: 100)
        let resumes = Hits()
        #expect(Self.deliver(Self.message(60), to: inbox) == false)
        #expect(Self.deliver(Self.message(60), to: inbox) == true)  // 120 held: pause
        // The reader takes both into its list, and the first from it: 120 still held.
        _ = try await inbox.take { resumes.next() }
        #expect(resumes.value == 0)
        // A message from bytes already read arrives while paused: it stays paused.
        #expect(Self.deliver(Self.message(10), to: inbox) == true)
        _ = try await inbox.take { resumes.next() }  // the second 60, from the reader's list
        #expect(resumes.value == 0)
        _ = try await inbox.take { resumes.next() }  // back for more: 10 held, reading resumes
        #expect(resumes.value == 1)
        #expect(Self.deliver(Self.message(10), to: inbox) == false)
        _ = try await inbox.take { resumes.next() }
        #expect(resumes.value == 1)
    }

    @Test func theEndComesAfterTheMessagesHeld() async throws {
        let inbox = WebSocketInbox(limit: 100)
        _ = Self.deliver(.text("last"), to: inbox)
        inbox.end(.closed(code: 1000, reason: "bye"))
        #expect(inbox.takeIfHeld {} == .text("last"))
        #expect(inbox.takeIfHeld {} == nil)
        #expect(try await inbox.take {} == nil)
        let failed = WebSocketInbox(limit: 100)
        failed.end(.failed(.dropped("gone")))
        await #expect(throws: WebSocketError.dropped("gone")) { try await failed.take {} }
    }

    /// A batch goes in order: its first message to a reader that waits, the rest held (with
    /// their bytes counted); into an empty inbox it is taken whole; the batch comes back empty.
    @Test func aBatchIsDeliveredInOrderUnderOneLock() async throws {
        let inbox = WebSocketInbox(limit: 100)
        let waiting = Task { try await inbox.take {} }
        // The reader waits first.
        while !inbox.hasWaitingReader { try await Task.sleep(for: .milliseconds(1)) }
        var none: [WebSocketMessage] = []
        #expect(inbox.deliver(&none) == false && inbox.hasWaitingReader)
        var batch: [WebSocketMessage] = [.text("1"), .text("2"), Self.message(99)]
        #expect(inbox.deliver(&batch) == false)  // "1" went to the reader: 100 held
        #expect(batch.isEmpty)
        #expect(try await waiting.value == .text("1"))
        #expect(try await inbox.take {} == .text("2"))  // "2" and the 99 bytes into the reader's list
        var second: [WebSocketMessage] = [.text("3")]
        #expect(inbox.deliver(&second) == true)  // 101 held: pause
        let resumes = Hits()
        #expect(try await inbox.take { resumes.next() } == Self.message(99))  // from the reader's list
        #expect(resumes.value == 0)
        #expect(try await inbox.take { resumes.next() } == .text("3"))  // back for more: 1 byte held
        #expect(resumes.value == 1)
        // Into an empty inbox: the batch is the inbox's list now, and the batch an empty one.
        var third: [WebSocketMessage] = [.text("4"), .text("5")]
        #expect(inbox.deliver(&third) == false)
        #expect(third.isEmpty)
        #expect(try await inbox.take {} == .text("4"))
        #expect(try await inbox.take {} == .text("5"))
    }
}
