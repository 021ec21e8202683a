import Foundation
import Testing

@testable import Connect

/// The bounded inbox between the transfer thread and a WebSocket's reader: reading pauses past
/// the limit, stays paused while messages already read keep arriving, and resumes once the reader
/// took it below half.
struct WebSocketInboxTests {
    static func message(_ bytes: Int) -> WebSocketMessage { .binary(Data(count: bytes)) }

    @Test func readingPausesPastTheLimitAndResumesBelowHalf() async throws {
        let inbox = WebSocketInbox(limit: 100)
        let resumes = Hits()
        #expect(inbox.deliver(Self.message(60)) == false)
        #expect(inbox.deliver(Self.message(60)) == true)  // 120 held: pause
        _ = try await inbox.take { resumes.next() }  // 60 held: not below half yet
        #expect(resumes.value == 0)
        // A message from bytes already read arrives while paused: it stays paused, though the
        // bytes held are under the limit now.
        #expect(inbox.deliver(Self.message(10)) == true)
        _ = try await inbox.take { resumes.next() }  // 10 held: resume
        #expect(resumes.value == 1)
        #expect(inbox.deliver(Self.message(10)) == false)
        _ = try await inbox.take { resumes.next() }
        _ = try await inbox.take { resumes.next() }
        #expect(resumes.value == 1)
    }

    @Test func theEndComesAfterTheMessagesHeld() async throws {
        let inbox = WebSocketInbox(limit: 100)
        _ = inbox.deliver(.text("last"))
        inbox.end(.closed(code: 1000, reason: "bye"))
        #expect(try await inbox.take {} == .text("last"))
        #expect(try await inbox.take {} == nil)
        let failed = WebSocketInbox(limit: 100)
        failed.end(.failed(.dropped("gone")))
        await #expect(throws: WebSocketError.dropped("gone")) { try await failed.take {} }
    }
}
