import ConnectFutures
import Foundation
import Testing

@testable import Connect

@Suite("MockTransport", .timeLimit(.minutes(3)))
struct MockTransportTests {
    static let api = URL(string: "https://api.example.com")!

    @Test func answersAConnectorWithItsCannedResponse() async throws {
        let mock = MockTransport()
        mock.register(.json(#"{"userId":1,"id":42,"title":"Mocked","completed":true}"#), for: TodoConnector.get(id: 42))
        let connect = Connect(transport: mock)
        let todo = try await TodoConnector.$server.withValue(Self.api) {
            try await connect.request(TodoConnector.get(id: 42)).decoded(toType: Todo.self).value
        }
        #expect(todo == Todo(userId: 1, id: 42, title: "Mocked", completed: true))
        #expect(mock.requests.map(\.url.absoluteString) == ["https://api.example.com/todos/42"])
    }

    @Test func aRequestWithNoMockFailsClearly() async throws {
        let mock = MockTransport()
        let result = await outcome(
            Connect(transport: mock).request(TestConnector(url: Self.api, endpoint: "/unknown", method: .delete)))
        guard case .failure(ConnectError.transport(let failure)) = result, failure.kind == .noMockResponse else {
            Issue.record("expected a missing mock, got \(result)")
            return
        }
        #expect(failure.message.hasPrefix("MockTransport has no response for DELETE https://api.example.com/unknown"))
        #expect(!failure.requestSent)
    }

    @Test func theWholePipelineRunsOverMocks() async throws {
        let mock = MockTransport()
        mock.register(
            .json(#"{"message":"warming up"}"#, status: 503),
            .json(#"{"userId":1,"id":1,"title":"t","completed":false}"#),
            when: { $0.url.path == "/todos/1" })
        mock.register(.json(#"{"msg":"Not yours"}"#, status: 403), when: { $0.url.path == "/todos/2" })
        mock.register(
            .json(#"{"userId":1,"id":"not a number","title":"t","completed":false}"#),
            when: { $0.url.path == "/todos/3" })
        let connect = Connect(
            middleware: ConnectMiddleware(
                adapters: [HeaderAdapter(header: HTTPHeader(name: "X-Key", value: "k"))], retriers: [quickPolicy]),
            transport: mock
        )
        let todo = try await connect.request(TestConnector(url: Self.api, endpoint: "/todos/1")).decoded(
            toType: Todo.self
        ).value
        #expect(todo.id == 1)
        #expect(mock.requests.count == 2)  // the 503 was retried
        #expect(mock.requests.allSatisfy { $0.headers.value(for: "X-Key") == "k" })

        let forbidden = await connectError(connect.request(TestConnector(url: Self.api, endpoint: "/todos/2")))
        #expect(forbidden?.description == "HTTP 403 Forbidden: Not yours")
        let undecodable = await connectError(
            connect.request(TestConnector(url: Self.api, endpoint: "/todos/3")).decoded(toType: Todo.self))
        guard case .decoding(let failure)? = undecodable else {
            Issue.record("expected a decoding failure")
            return
        }
        #expect(failure.codingPath == "id")
    }

    @Test func delayedResponsesArriveLaterAndCanBeCancelled() async throws {
        let mock = MockTransport(behavior: .delayed(.milliseconds(150)))
        mock.register(.json("{}"), when: { _ in true })
        let connect = Connect(transport: mock)
        let start = ContinuousClock.now
        _ = try await connect.request(TestConnector(url: Self.api, endpoint: "/slow")).value
        #expect(ContinuousClock.now - start >= .milliseconds(150))

        let quick = MockTransport()
        quick.register(MockResponse.json("{}").delayed(by: .seconds(30)), when: { _ in true })
        let pending = Connect(transport: quick).request(TestConnector(url: Self.api, endpoint: "/never"))
        pending.cancel()
        #expect(await connectError(pending) == .cancelled)
    }

    @Test func failuresAndDownloadsOverMocks() async throws {
        let mock = MockTransport()
        mock.register(.failure(ConnectError.timedOut("mocked timeout")), when: { $0.url.path == "/timeout" })
        mock.register(.status(200, body: Data("file contents".utf8)), when: { $0.url.path == "/file" })
        let connect = Connect(transport: mock)
        #expect(
            await connectError(connect.request(TestConnector(url: Self.api, endpoint: "/timeout")))
                == .timedOut("mocked timeout"))
        let file = try await connect.download(TestConnector(url: Self.api, endpoint: "/file")).value
        defer { try? FileManager.default.removeItem(at: file.location) }
        #expect(try Data(contentsOf: file.location) == Data("file contents".utf8))
    }
}
