import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// Server-Sent Events over real connections: a chatty server, a server that drops the
/// connection and resumes from `Last-Event-ID`, the wrong content type, a 204, cancellation.
@Suite("Event streams", .timeLimit(.minutes(3)))
struct EventStreamTests {
    static func eventStreamHead(_ extra: String = "") -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\(extra)\r\n"
    }

    @Test func aChattyServersEventsArriveInOrder() async throws {
        let body = (1...500).map { "id: \($0)\nevent: tick\ndata: {\"n\":\($0)}\n\n" }.joined()
        let server = try RawServer { _, _ in [.send(Self.eventStreamHead() + body), .close] }
        defer { server.shutdown() }
        var received: [ServerSentEvent] = []
        for try await event in sharedConnect.events(TestConnector(server, "/ticks"), reconnection: .never) {
            received.append(event)
        }
        #expect(received.count == 500)
        #expect(received.first == ServerSentEvent(id: "1", event: "tick", data: #"{"n":1}"#))
        #expect(received.last?.id == "500")
        #expect(server.requests.first?.header("Accept") == "text/event-stream")
    }

    @Test func aDroppedConnectionResumesFromTheLastEventID() async throws {
        let server = try RawServer { request, _ in
            switch request.header("Last-Event-ID") {
            case nil:
                return [
                    .send(
                        Self.eventStreamHead() + "retry: 20\n\nid: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\ndata: cut off"
                    ), .close
                ]
            case "2": return [.send(Self.eventStreamHead() + "id: 3\ndata: c\n\n"), .close]
            default: return [.send("HTTP/1.1 204 No Content\r\n\r\n")]
            }
        }
        defer { server.shutdown() }
        var received: [String] = []
        for try await event in sharedConnect.events(TestConnector(server, "/feed")) {
            received.append(event.data)
        }
        #expect(received == ["a", "b", "c"])
        #expect(server.requests.map { $0.header("Last-Event-ID") } == [nil, "2", "3"])
    }

    @Test func eachReconnectionGoesThroughTheMiddleware() async throws {
        let server = try RawServer { request, index in
            request.header("Last-Event-ID") == nil
                ? [.send(Self.eventStreamHead() + "retry: 10\nid: 1\ndata: first\n\n"), .close]
                : [.send("HTTP/1.1 204 No Content\r\n\r\n")]
        }
        defer { server.shutdown() }
        let stamps = Hits()
        struct Stamp: RequestAdapter {
            let stamps: Hits
            func adapt(_ request: Request) async throws -> Request {
                var request = request
                request.setHeader(HTTPHeader(name: "X-Attempt", value: "\(stamps.next())"))
                return request
            }
        }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [Stamp(stamps: stamps)]))
        var received: [String] = []
        for try await event in connect.events(TestConnector(server, "/feed")) { received.append(event.data) }
        #expect(received == ["first"])
        #expect(server.requests.map { $0.header("X-Attempt") } == ["1", "2"])
    }

    @Test func anotherContentTypeFails() async throws {
        let server = try TestServer { _ in .json(#"{"not":"events"}"#) }
        defer { server.shutdown() }
        do {
            for try await _ in sharedConnect.events(TestConnector(server, "/json")) {}
            Issue.record("expected a failure")
        } catch ConnectError.http(let failure) {
            #expect(failure.message?.contains("text/event-stream") == true)
        }
    }

    @Test func anotherContentTypeGoesThroughTheErrorHandler() async throws {
        let server = try TestServer { _ in .json(#"{"code":"NOT_STREAMING","reason":"use /v2/stream"}"#) }
        defer { server.shutdown() }
        struct Handler: ErrorHandlerProtocol {
            func handle(response: [String: Any]) -> (any Error)? {
                AppError.server(response["reason"] as? String ?? "?")
            }
        }
        do {
            for try await _ in Connect(errorHandler: Handler()).events(TestConnector(server, "/json")) {}
            Issue.record("expected a failure")
        } catch AppError.server(let reason) {
            #expect(reason == "use /v2/stream")
        }
    }

    @Test func aSlowConsumerGetsEveryEventInOrder() async throws {
        let body = (1...3000).map { "id: \($0)\ndata: \(String(repeating: "x", count: 100))\n\n" }.joined()
        let server = try RawServer { _, _ in [.send(Self.eventStreamHead() + body), .close] }
        defer { server.shutdown() }
        var next = 1
        // A 16 KiB buffer against 330 KB of events: the transfer pauses and resumes many times.
        for try await event in sharedConnect.events(
            TestConnector(server, "/fast"), reconnection: .never, bufferSize: 16 << 10)
        {
            #expect(event.id == String(next))
            next += 1
            if next % 100 == 0 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(next == 3001)
    }

    @Test func anErrorStatusFailsThroughTheErrorHandler() async throws {
        let server = try TestServer { _ in .json(#"{"message":"Stream closed for maintenance"}"#, status: 503) }
        defer { server.shutdown() }
        do {
            for try await _ in sharedConnect.events(TestConnector(server, "/feed")) {}
            Issue.record("expected a failure")
        } catch ConnectError.http(let failure) {
            #expect(failure.statusCode == 503 && failure.message == "Stream closed for maintenance")
        }
    }

    @Test func a204EndsTheStream() async throws {
        let server = try TestServer { _ in TestResponse(status: 204) }
        defer { server.shutdown() }
        var count = 0
        for try await _ in sharedConnect.events(TestConnector(server, "/feed")) { count += 1 }
        #expect(count == 0 && server.requests.count == 1)
    }

    @Test func theStreamGivesUpAfterThePolicysAttempts() async throws {
        let server = try RawServer { _, _ in [.send(Self.eventStreamHead() + ": nothing to say\n"), .close] }
        defer { server.shutdown() }
        let policy = ReconnectionPolicy(maximumAttempts: 2, delay: .milliseconds(10))
        do {
            for try await _ in sharedConnect.events(TestConnector(server, "/quiet"), reconnection: policy) {}
            Issue.record("expected the stream to give up")
        } catch ConnectError.transport(let failure) {
            #expect(failure.kind == .connectionClosed)
        }
        #expect(server.requests.count == 3)  // the first connection and two reconnections
    }

    @Test func cancellingTheConsumerEndsTheTransfer() async throws {
        let server = try RawServer { _, _ in [.send(Self.eventStreamHead() + "data: one\n\n"), .stall] }
        defer { server.shutdown() }
        let consumer = Task {
            var count = 0
            for try await _ in sharedConnect.events(TestConnector(server, "/endless")) { count += 1 }
            return count
        }
        #expect(await eventually { server.requests.count == 1 })
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        let result = await consumer.result
        guard case .failure(let error) = result, (error as? ConnectError) == .cancelled else {
            Issue.record("expected the consumer to end with .cancelled, got \(result)")
            return
        }
    }

    @Test func reconnectionWaitsGrowAndStayBounded() {
        let policy = ReconnectionPolicy(maximumAttempts: 10, delay: .seconds(1), maximumDelay: .seconds(5))
        #expect(
            (1...5).map { policy.wait(beforeAttempt: $0, serverRetry: nil) } == [
                .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)
            ])
        #expect(policy.wait(beforeAttempt: 1, serverRetry: .milliseconds(250)) == .milliseconds(250))
        #expect(policy.wait(beforeAttempt: 1, serverRetry: .seconds(30)) == .seconds(5))
    }
}
