import Connect
import ConnectFutures
import ConnectOpenAPI
import ConnectTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing
import TodoAPIClient

/// The client swift-openapi-generator made from `Tests/Support/Sources/TodoAPIClient/openapi.yaml`, over
/// ``ConnectTransport``, against the to-do service.
@Suite("OpenAPI transport")
struct OpenAPITransportTests {
    let service: TodoService
    let client: Client

    init() throws {
        service = try TodoService()
        client = Client(serverURL: service.baseURL, transport: ConnectTransport(sharedConnect))
    }

    @Test func pathAndQueryParametersReachTheServer() async throws {
        let todos = try await client.listTodos(query: .init(completed: true, limit: 1)).ok.body.json
        #expect(todos.map(\.id) == [1])
        let recorded = try #require(service.requests.last)
        #expect(recorded.path == "/todos")
        #expect(recorded.query?.contains("completed=true") == true)
        #expect(recorded.query?.contains("limit=1") == true)

        let todo = try await client.getTodo(path: .init(id: 2)).ok.body.json
        #expect(todo.title == "Chain futures top-down")
    }

    @Test func aDocumentedErrorStatusReachesTheGeneratedClient() async throws {
        let output = try await client.getTodo(path: .init(id: 99))
        guard case .notFound(let notFound) = output else {
            Issue.record("expected notFound, got \(output)")
            return
        }
        #expect(try notFound.body.json.message == "Todo 99 does not exist")
    }

    @Test func anErrorStatusCanFailTheCallInstead() async throws {
        let strict = Client(
            serverURL: service.baseURL, transport: ConnectTransport(sharedConnect, throwsHTTPErrors: true))
        do {
            _ = try await strict.getTodo(path: .init(id: 99))
            Issue.record("expected an error")
        } catch let error as ClientError {
            #expect((error.underlyingError as? ConnectError)?.statusCode == 404)
        }
    }

    @Test func aJSONBodyGoesOutAndComesBack() async throws {
        let edited = Components.Schemas.Todo(userId: 0, id: 0, title: "Generated", completed: true)
        let stored = try await client.updateTodo(
            path: .init(userId: 7, todoId: 3), query: .init(action: .update), body: .json(edited)
        ).ok.body.json
        #expect(stored == Components.Schemas.Todo(userId: 7, id: 3, title: "Generated", completed: true))
        let recorded = try #require(service.requests.last)
        #expect(recorded.method == "PUT")
        #expect(recorded.header("Content-Type") == "application/json; charset=utf-8")
    }

    @Test func aStreamedUploadAndDownload() async throws {
        // 2 MiB in 64 KiB chunks of unknown total: sent chunked, as it is produced.
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for index in 0..<32 { continuation.yield(ArraySlice(cyclicBytes(65_536, plus: index, modulo: 256))) }
            continuation.finish()
        }
        let expected = (0..<32).reduce(into: [UInt8]()) { $0 += cyclicBytes(65_536, plus: $1, modulo: 256) }
        let body = HTTPBody(chunks, length: .unknown)
        let receipt = try await client.uploadAttachment(path: .init(id: 1), body: .binary(body)).ok.body.json
        #expect(receipt.bytes == Int64(expected.count))
        #expect(receipt.checksum == String(expected.reduce(UInt32(0)) { $0 &+ UInt32($1) }))
        #expect(service.requests.last?.header("Transfer-Encoding") == "chunked")

        // The download arrives in pieces (the service trickles it), each handed on as it comes.
        let download = try await client.downloadAttachment(path: .init(id: 1)).ok.body.binary
        #expect(download.length == .known(Int64(expected.count)))
        var received: [UInt8] = []
        var pieces = 0
        for try await piece in download {
            received += piece
            pieces += 1
        }
        #expect(received == expected)
        #expect(pieces > 1)
    }

    @Test func aKnownLengthUploadSendsContentLength() async throws {
        let receipt = try await client.uploadAttachment(path: .init(id: 2), body: .binary(HTTPBody([1, 2, 3]))).ok.body
            .json
        #expect(receipt.bytes == 3)
        #expect(service.requests.last?.header("Content-Length") == "3")
    }

    @Test func theClientsMiddlewareAndRetriesApply() async throws {
        let attempts = Atomic<Int>(0)
        let flaky = try TestServer { request in
            attempts.add(1, ordering: .relaxed).newValue == 1
                ? .text("busy", status: 503)
                : .json(#"{"userId":1,"id":1,"title":"\#(request.header("X-API-Key") ?? "none")","completed":true}"#)
        }
        defer { flaky.shutdown() }
        let connect = Connect(
            middleware: ConnectMiddleware(
                adapters: [HeaderAdapter(header: HTTPHeader(name: "X-API-Key", value: "k-123"))], retrier: quickPolicy))
        let client = Client(serverURL: flaky.baseURL, transport: ConnectTransport(connect))
        let todo = try await client.getTodo(path: .init(id: 1)).ok.body.json
        #expect(todo.title == "k-123")
        #expect(attempts.load(ordering: .relaxed) == 2)
    }

    @Test func cancellingTheCallingTaskCancelsTheTransfer() async throws {
        let slow = try TestServer { _ in
            TestResponse(status: 200, body: Data("{}".utf8), behavior: .delay(.seconds(60)))
        }
        defer { slow.shutdown() }
        let client = Client(serverURL: slow.baseURL, transport: ConnectTransport(sharedConnect))
        let call = Task { try await client.getTodo(path: .init(id: 1)) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        call.cancel()
        let result = await call.result
        // Before the server's answer (60 s): under ThreadSanitizer with every suite in parallel,
        // the calling task waits tens of seconds for the cooperative pool, so the bound is the
        // server's delay, not a tight figure.
        #expect(ContinuousClock.now - started < .seconds(50))
        guard case .failure(let error as ClientError) = result else {
            Issue.record("expected a ClientError, got \(result)")
            return
        }
        #expect(error.underlyingError as? ConnectError == .cancelled)
    }

    @Test func aBodyLetGoOfBeforeItsEndCancelsTheTransfer() async throws {
        let receipt = try await client.uploadAttachment(
            path: .init(id: 3), body: .binary(HTTPBody([UInt8](repeating: 7, count: 100_000)))
        ).ok.body.json
        #expect(receipt.bytes == 100_000)
        let connect = Connect()
        let client = Client(serverURL: service.baseURL, transport: ConnectTransport(connect, bufferSize: 16 << 10))
        do {
            let download = try await client.downloadAttachment(path: .init(id: 3)).ok.body.binary
            var iterator = download.makeAsyncIterator()
            _ = try await iterator.next()
        }
        // With the body gone, nothing is left in flight: a cancel-all finds nothing to cancel,
        // and a new call goes through at once.
        let again = try await client.getTodo(path: .init(id: 3)).ok.body.json
        #expect(again.id == 3)
    }
}
