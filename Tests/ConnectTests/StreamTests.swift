import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

@Suite("Streamed bodies", .timeLimit(.minutes(3)))
struct StreamTests {
    @Test func aBodyIsConsumedAsItArrives() async throws {
        let body = pattern(100_000)
        let server = try TestServer { _ in
            TestResponse(
                headers: [("X-Feed", "live")], body: body, behavior: .trickle(chunk: 10_000, every: .milliseconds(30)))
        }
        defer { server.shutdown() }
        let stream = sharedConnect.stream(TestConnector(server, "/feed"))
        let head = try await stream.response
        #expect(head.statusCode == 200 && head.header("X-Feed") == "live")
        var received = Data()
        var chunks = 0
        for try await chunk in stream {
            chunks += 1
            received += chunk
        }
        #expect(received == body)
        #expect(chunks >= 5)  // it came in pieces, not at the end
    }

    @Test func aSlowReaderPausesTheTransferInsteadOfBuffering() async throws {
        let body = pattern(8 << 20)
        let server = try TestServer { _ in TestResponse(body: body) }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumResponseBodySize = 1 << 20  // the stream is not bound by it
        // What is measured is the buffer, not the time: 8 MiB read slowly under ThreadSanitizer,
        // beside other suites, took past the default minute.
        configuration.timeout = .seconds(300)
        let connect = Connect(configuration: configuration)
        let stream = connect.stream(TestConnector(server, "/big"), bufferSize: 64 << 10)
        var received = 0
        var hash: UInt64 = 0
        for try await chunk in stream {
            received += chunk.count
            for byte in chunk { hash = hash &* 31 &+ UInt64(byte) }
            if received < 1 << 20 { try await Task.sleep(for: .milliseconds(1)) }  // slow at first
        }
        var expected: UInt64 = 0
        for byte in body { expected = expected &* 31 &+ UInt64(byte) }
        #expect(received == body.count && hash == expected)
        // Never much more than the buffer: one chunk from libcurl beyond it at most.
        #expect(stream.buffer.peakBuffered <= (64 << 10) + (64 << 10))
    }

    @Test func anErrorStatusThrowsTheHandlersError() async throws {
        let server = try TestServer { _ in .json(#"{"message":"Feed closed"}"#, status: 410) }
        defer { server.shutdown() }
        let stream = sharedConnect.stream(TestConnector(server, "/feed"))
        await #expect(throws: ConnectError.self) { _ = try await stream.response }
        do {
            for try await _ in stream { Issue.record("no chunk expected") }
            Issue.record("expected an error")
        } catch let error as ConnectError {
            #expect(error.description == "HTTP 410 Gone: Feed closed")
        }
    }

    @Test func cancellingStopsTheStream() async throws {
        // Part of the body, then nothing: the stream can only end by being cancelled, however
        // slowly this test runs (under ThreadSanitizer it can be starved for seconds).
        let body = pattern(1_000_000)
        let server = try TestServer { _ in TestResponse(body: body, behavior: .stallAfter(bytes: 100_000)) }
        defer { server.shutdown() }
        let stream = sharedConnect.stream(TestConnector(server, "/endless"), bufferSize: 16 << 10)
        var chunks = 0
        do {
            for try await _ in stream {
                chunks += 1
                if chunks == 3 { stream.cancel() }
            }
            Issue.record("expected the iteration to throw")
        } catch {
            #expect(error as? ConnectError == .cancelled)
        }
        #expect(chunks >= 3)
    }
}

@Suite("Stream buffer")
struct StreamBufferTests {
    @Test func aConsumerThatNeverCatchesUpStillLetsReadChunksGo() async throws {
        let buffer = StreamBuffer(limit: 1 << 20, context: FutureContext())
        let byte: [UInt8] = [42]
        func offer() {
            _ = byte.withUnsafeBytes {
                buffer.offer($0, head: Response(statusCode: 200, url: URL(string: "http://x")!))
            }
        }
        offer()
        for _ in 0..<1000 {
            offer()  // always one chunk ahead of the reader
            _ = try await buffer.next()
        }
        #expect(buffer.chunkSlots < 70)
    }
}
