import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

@Suite("async/await", .timeLimit(.minutes(3)))
struct AsyncTests {
    @Test func everyKindOfRequestCanBeAwaited() async throws {
        let server = try TestServer { request in .json(#"{"userId":1,"id":1,"title":"\#(request.method)","completed":false}"#) }
        defer { server.shutdown() }
        let data = try await sharedConnect.request(TestConnector(server, "/a")).value
        let todo = try await sharedConnect.request(TestConnector(server, "/b")).decoded(toType: Todo.self).value
        let response = try await sharedConnect.response(TestConnector(server, "/c", method: .head)).value
        let uploaded = try await sharedConnect.upload(files: [File(name: "f", key: "f", mimeType: .plainText, data: Data("x".utf8))],
                                                      to: TestConnector(server, "/d", method: .post)).decoded(toType: Todo.self).value
        let file = try await sharedConnect.download(TestConnector(server, "/e")).value
        defer { try? FileManager.default.removeItem(at: file.location) }
        var streamed = Data()
        for try await chunk in sharedConnect.stream(TestConnector(server, "/f")) { streamed += chunk }
        #expect(!data.isEmpty && todo.title == "GET" && response.statusCode == 200 && uploaded.title == "POST")
        #expect(try Data(contentsOf: file.location) == streamed)
    }

    @Test func cancellingTheAwaitingTaskStopsTheTransfer() async throws {
        let server = try TestServer { _ in TestResponse(body: Data(count: 100_000), behavior: .stallAfter(bytes: 1_000)) }
        defer { server.shutdown() }
        let task = Task { try await sharedConnect.request(TestConnector(server, "/stalled")).value }
        #expect(await eventually { server.requests.count == 1 })
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error as? ConnectError == .cancelled)
    }
}
