import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

@Suite("async/await", .timeLimit(.minutes(3)))
struct AsyncTests {
    @Test func everyKindOfRequestCanBeAwaited() async throws {
        let server = try TestServer { request in
            .json(#"{"userId":1,"id":1,"title":"\#(request.method)","completed":false}"#)
        }
        defer { server.shutdown() }
        let data = try await sharedConnect.request(TestConnector(server, "/a")).value
        let todo = try await sharedConnect.request(TestConnector(server, "/b")).decoded(toType: Todo.self).value
        let response = try await sharedConnect.response(TestConnector(server, "/c", method: .head)).value
        let uploaded = try await sharedConnect.upload(
            files: [File(name: "f", key: "f", mimeType: .plainText, data: Data("x".utf8))],
            to: TestConnector(server, "/d", method: .post)
        ).decoded(toType: Todo.self).value
        let file = try await sharedConnect.download(TestConnector(server, "/e")).value
        defer { try? FileManager.default.removeItem(at: file.location) }
        var streamed = Data()
        for try await chunk in sharedConnect.stream(TestConnector(server, "/f")) { streamed += chunk }
        #expect(!data.isEmpty && todo.title == "GET" && response.statusCode == 200 && uploaded.title == "POST")
        #expect(try Data(contentsOf: file.location) == streamed)
    }

    @Test func aTaskThatPrefersTheCallbackExecutorContinuesOnTheCallbackQueue() async throws {
        let server = try TestServer { request in
            .json(#"{"userId":1,"id":1,"title":"\#(request.method)","completed":false}"#)
        }
        defer { server.shutdown() }
        let connect = CallbackQueueMarker.client()
        #expect(CallbackQueueMarker.isMarked(connect.callbackExecutor.queue))

        let outcomes = try await withTaskExecutorPreference(connect.callbackExecutor) {
            var outcomes: [(title: String, onCallbackQueue: Bool)] = []
            for index in 0..<3 {
                let todo = try await connect.request(TestConnector(server, "/\(index)")).decoded(toType: Todo.self)
                    .value
                outcomes.append((todo.title, CallbackQueueMarker.isCurrent))
            }
            return outcomes
        }
        let titles = outcomes.map { $0.title }
        let continuedOnTheQueue = outcomes.map { $0.onCallbackQueue }
        #expect(titles == ["GET", "GET", "GET"])
        #expect(continuedOnTheQueue == [true, true, true])
        #expect(server.requests.count == 3)
    }

    @Test func aTaskWithoutThePreferenceContinuesElsewhere() async throws {
        let server = try TestServer { _ in .json(#"{"userId":1,"id":1,"title":"t","completed":false}"#) }
        defer { server.shutdown() }
        let connect = CallbackQueueMarker.client()
        _ = try await connect.request(TestConnector(server, "/a")).value
        #expect(!CallbackQueueMarker.isCurrent)
    }

    @Test func cancellingTheAwaitingTaskStopsTheTransfer() async throws {
        let server = try TestServer { _ in TestResponse(body: Data(count: 100_000), behavior: .stallAfter(bytes: 1_000))
        }
        defer { server.shutdown() }
        let task = Task { try await sharedConnect.request(TestConnector(server, "/stalled")).value }
        #expect(await eventually { server.requests.count == 1 })
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? ConnectError == .cancelled)
    }
}

/// Tells whether code runs on a queue the tests marked.
enum CallbackQueueMarker {
    static let key = DispatchSpecificKey<Int>()
    static let value = 29

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == value }

    static func isMarked(_ queue: DispatchQueue) -> Bool { queue.getSpecific(key: key) == value }

    /// A client whose callback queue is a serial queue marked as the tests' callback queue.
    static func client() -> Connect {
        let queue = DispatchQueue(label: "connect.tests.callbacks")
        queue.setSpecific(key: key, value: value)
        var configuration = ConnectConfiguration()
        configuration.callbackQueue = queue
        return Connect(configuration: configuration)
    }
}
