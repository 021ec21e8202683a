import Connect
import ConnectFutures
import ConnectOpenAPI
import ConnectTestServer
import Foundation
import HTTPTypes
import InMemoryTracing
import Tracing
import Logging
import OpenAPIRuntime
import TodoAPIClient

/// `make demo`: the seed's examples, for real, against an embedded to-do API on 127.0.0.1
/// (or any server given with `--base-url URL`).
@main
struct Demo {
    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = .info
            return handler
        }
        var baseURL: URL?
        let arguments = CommandLine.arguments.dropFirst()
        if let flag = arguments.firstIndex(of: "--base-url"), arguments.indices.contains(flag + 1) {
            baseURL = URL(string: arguments[flag + 1])
        }
        var server: AnyObject?
        if baseURL == nil {
            do {
                let api = try TodoService()
                server = api
                baseURL = api.baseURL
                print("Started the embedded to-do API at \(api.baseURL.absoluteString)\n")
            } catch {
                print("Could not start the embedded server: \(error)")
                exit(1)
            }
        }
        let failures = await run(against: baseURL!)
        _ = server
        print(
            failures == 0
                ? "\nAll demo steps behaved as expected." : "\n\(failures) demo step(s) did not behave as expected.")
        exit(failures == 0 ? 0 : 1)
    }

    static func run(against baseURL: URL) async -> Int {
        TodoConnector.baseURL = baseURL
        var failures = 0

        step("1. TodoConnector.get(id: 1) with debugResponse: true, decoded and observed")
        let todo: Todo? = await withCheckedContinuation { continuation in
            Connect.default.request(TodoConnector.get(id: 1), debugResponse: true)
                .decoded(toType: Todo.self)
                .observe { result in
                    switch result {
                    case .success(let todo):
                        print("→ \(todo)")
                        continuation.resume(returning: todo)
                    case .failure(let error):
                        print("→ error: \(error)")
                        continuation.resume(returning: nil)
                    }
                }
        }
        if todo == nil { failures += 1 }

        step("2. AdvancedTodoConnector.update with CompositeParameters (path, path, query, JSON body)")
        let edited = Todo(userId: 2, id: 1, title: "Test Todo", completed: false)
        do {
            let updated = try await Connect.default
                .request(
                    AdvancedTodoConnector.update(userId: 1, todoId: 2, action: .update, object: edited),
                    debugResponse: true
                )
                .decoded(toType: Todo.self)
                .value
            print("→ the server stored \(updated)")
        } catch {
            print("→ error: \(error)")
            failures += 1
        }

        step("3. A to-do that does not exist: the error handler surfaces the server's message")
        do {
            _ = try await Connect.default.request(TodoConnector.get(id: 42)).decoded(toType: Todo.self).value
            print("→ unexpectedly succeeded")
            failures += 1
        } catch let error as ConnectError {
            print("→ \(error)")
            if case .http(let failure) = error {
                print("  status \(failure.statusCode), message: \(failure.message ?? "none")")
            } else {
                failures += 1
            }
        } catch {
            print("→ unexpected error type: \(error)")
            failures += 1
        }

        step("4. Bad input never reaches the wire: a path key the endpoint lacks")
        do {
            _ = try await Connect.default.request(BrokenConnector()).value
            print("→ unexpectedly succeeded")
            failures += 1
        } catch {
            print("→ \(error)")
        }

        step("5. Three requests at once, combined with Future.whenAll")
        do {
            let todos = try await Future.whenAll(
                (1...3).map { id in
                    Connect.default.request(TodoConnector.get(id: id)).decoded(toType: Todo.self)
                }
            ).value
            for todo in todos { print("→ #\(todo.id) \(todo.completed ? "✓" : "·") \(todo.title)") }
        } catch {
            print("→ error: \(error)")
            failures += 1
        }
        step("6. Server-Sent Events: the activity feed, event by event, until the server says it is done (204)")
        do {
            var count = 0
            for try await event in Connect.default.events(ActivityConnector()) {
                let todo = try JSONDecoder().decode(Todo.self, from: Data(event.data.utf8))
                print("→ \(event.event) #\(event.id ?? "-"): \(todo.title)")
                count += 1
            }
            if count != 3 { failures += 1 }
        } catch {
            print("→ error: \(error)")
            failures += 1
        }
        step("7. The to-do API's OpenAPI client (generated by swift-openapi-generator) over ConnectTransport")
        do {
            let client = Client(serverURL: baseURL, transport: ConnectTransport(.default))
            let done = try await client.listTodos(query: .init(completed: true)).ok.body.json
            print("→ listTodos(completed: true): \(done.map { "#\($0.id)" }.joined(separator: ", "))")
            switch try await client.getTodo(path: .init(id: 42)) {
            case .notFound(let notFound): print("→ getTodo(42): 404, \(try notFound.body.json.message)")
            case let other:
                print("→ getTodo(42): unexpected \(other)")
                failures += 1
            }
            // An upload streamed from a sequence of chunks, and the download read as it arrives.
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                for line in ["first line\n", "second line\n", "third line\n"] {
                    continuation.yield(ArraySlice(line.utf8))
                }
                continuation.finish()
            }
            let receipt = try await client.uploadAttachment(
                path: .init(id: 1), body: .binary(HTTPBody(chunks, length: .unknown))
            ).ok.body.json
            print("→ uploadAttachment: \(receipt.bytes) bytes, checksum \(receipt.checksum)")
            var pieces = 0
            var bytes = 0
            for try await piece in try await client.downloadAttachment(path: .init(id: 1)).ok.body.binary {
                pieces += 1
                bytes += piece.count
            }
            print("→ downloadAttachment: \(bytes) bytes in \(pieces) pieces")
            if done.isEmpty || Int64(bytes) != receipt.bytes { failures += 1 }
        } catch {
            print("→ error: \(error)")
            failures += 1
        }
        step("8. A request from swift-http-types, its body streamed from an AsyncSequence, traced")
        do {
            let tracer = InMemoryTracer()
            var configuration = ConnectConfiguration()
            configuration.tracer = tracer
            let traced = Connect(configuration: configuration)
            let standard = HTTPRequest(
                method: .put, scheme: baseURL.scheme,
                authority: "\(baseURL.host() ?? "127.0.0.1"):\(baseURL.port ?? 80)",
                path: "/todos/2/attachment")
            let lines = AsyncStream<Data> { continuation in
                for index in 1...3 { continuation.yield(Data("line \(index)\n".utf8)) }
                continuation.finish()
            }
            let response = try await traced.send(try Request(standard, body: .stream(lines))).value
            print("→ \(response.httpResponse.status): \(String(decoding: response.body, as: UTF8.self))")
            for span in tracer.finishedSpans {
                let attributes = ["http.request.method", "url.full", "http.response.status_code"].map {
                    "\($0)=\(span.attributes[$0].map { "\($0)" } ?? "-")"
                }
                print("→ span \(span.operationName) (\(span.kind)): \(attributes.joined(separator: ", "))")
            }
            if response.statusCode != 200 || tracer.finishedSpans.count != 1 { failures += 1 }
        } catch {
            print("→ error: \(error)")
            failures += 1
        }
        failures += await webSocketStep()
        return failures
    }

    /// Step 9: a chat over a WebSocket, against the embedded NIOWebSocket server (it echoes, and
    /// closes when asked), opened through the same client as every request.
    static func webSocketStep() async -> Int {
        step("9. A WebSocket: open with a subprotocol, send, ping, read the echo, let the server close")
        do {
            let server = try WebSocketServer()
            defer { server.shutdown() }
            let socket = try await Connect.default.webSocket(ChatConnector(baseURL: server.webSocketURL))
            print("→ opened \(socket.response.statusCode), subprotocol \(socket.subprotocol ?? "none")")
            try await socket.send("Hello over a WebSocket")
            try await socket.ping()
            try await socket.send("cmd:close 1000 see you")
            var echoes = 0
            for try await message in socket.messages {
                print("→ received \(message)")
                echoes += 1
            }
            print(
                "→ the server closed with \(socket.closeCode.map(String.init) ?? "-") \"\(socket.closeReason ?? "")\"")
            return echoes == 1 && socket.closeCode == 1000 && socket.subprotocol == "chat" ? 0 : 1
        } catch {
            print("→ error: \(error)")
            return 1
        }
    }

    static func step(_ title: String) {
        print("\n== \(title)")
    }
}
