import ConnectTestServer
import Foundation

/// The embedded to-do service the demo talks to: a small JSON API in the style of the seed's
/// examples, running on 127.0.0.1.
enum TodoAPI {
    struct Todo: Codable, Sendable {
        var userId: Int
        var id: Int
        var title: String
        var completed: Bool
    }

    static let todos = [
        Todo(userId: 1, id: 1, title: "Describe endpoints as Connectors", completed: true),
        Todo(userId: 1, id: 2, title: "Chain futures top-down", completed: false),
        Todo(userId: 1, id: 3, title: "Run on Linux over libcurl", completed: true),
    ]

    static func start() throws -> TestServer {
        try TestServer { request in respond(to: request) }
    }

    static func respond(to request: RecordedRequest) -> TestResponse {
        let segments = request.path.split(separator: "/").map(String.init)
        switch (request.method, segments.count) {
        case ("GET", 2) where segments == ["todos", "activity"]:
            // The to-dos being worked on, as Server-Sent Events; the stream ends when the
            // client comes back with the last ID.
            if request.header("Last-Event-ID") != nil { return TestResponse(status: 204) }
            let events = todos.map { "id: \($0.id)\nevent: progress\ndata: \(encode($0))\n\n" }.joined()
            return TestResponse(headers: [("Content-Type", "text/event-stream")], body: Data(("retry: 100\n\n" + events).utf8),
                                behavior: .trickle(chunk: 64, every: .milliseconds(20)))
        case ("GET", 2) where segments[0] == "todos":
            guard let id = Int(segments[1]), let todo = todos.first(where: { $0.id == id }) else {
                return .json(#"{"message":"Todo \#(segments[1]) does not exist"}"#, status: 404)
            }
            return .json(encode(todo))
        case ("PUT", 4) where segments[0] == "users" && segments[2] == "todos":
            guard request.query == "action=update" else {
                return .json(#"{"error":{"message":"unknown action"}}"#, status: 400)
            }
            guard var todo = try? JSONDecoder().decode(Todo.self, from: request.body) else {
                return .json(#"{"msg":"the body is not a to-do"}"#, status: 422)
            }
            todo.userId = Int(segments[1]) ?? todo.userId
            todo.id = Int(segments[3]) ?? todo.id
            return .json(encode(todo))
        default:
            return .json(#"{"error":"no route for \#(request.method) \#(request.path)"}"#, status: 404)
        }
    }

    static func encode(_ todo: Todo) -> String {
        String(decoding: try! JSONEncoder().encode(todo), as: UTF8.self)
    }
}
