import NIOConcurrencyHelpers
import Foundation

/// The to-do service of the demo and the tests: a small JSON API in the style of the seed's
/// examples, on 127.0.0.1. `Tests/Support/Sources/TodoAPIClient/openapi.yaml` describes it.
///
/// ```swift
/// let service = try TodoService()
/// defer { service.shutdown() }
/// // … send requests to service.baseURL …
/// ```
public final class TodoService: Sendable {
    /// A to-do, as the service stores and sends it.
    public struct Todo: Codable, Sendable, Equatable {
        /// The user it belongs to.
        public var userId: Int
        /// Its ID.
        public var id: Int
        /// What to do.
        public var title: String
        /// Whether it is done.
        public var completed: Bool

        /// Creates a to-do.
        public init(userId: Int, id: Int, title: String, completed: Bool) {
            self.userId = userId
            self.id = id
            self.title = title
            self.completed = completed
        }
    }

    /// The to-dos the service starts with.
    public static let todos = [
        Todo(userId: 1, id: 1, title: "Describe endpoints as Connectors", completed: true),
        Todo(userId: 1, id: 2, title: "Chain futures top-down", completed: false),
        Todo(userId: 1, id: 3, title: "Run on Linux over libcurl", completed: true)
    ]

    /// The server it runs on.
    public let server: TestServer
    /// Attachments uploaded, by to-do ID.
    private final class Attachments: Sendable {
        let files = NIOLockedValueBox<[Int: Data]>([:])
    }

    /// The URL the service answers at.
    public var baseURL: URL { server.baseURL }

    /// Every request the service received, in order.
    public var requests: [RecordedRequest] { server.requests }

    /// Starts the service on a free port, or on a Unix domain socket at `unixSocketPath`.
    public init(unixSocketPath: String? = nil) throws {
        let attachments = Attachments()
        server = try TestServer(unixSocketPath: unixSocketPath) { request in
            Self.respond(to: request, attachments: attachments)
        }
    }

    /// Stops the server.
    public func shutdown() {
        server.shutdown()
    }

    private static func respond(to request: RecordedRequest, attachments: Attachments) -> TestResponse {
        let segments = request.path.split(separator: "/").map(String.init)
        switch (request.method, segments.count) {
        case ("GET", 1) where segments == ["todos"]:
            let query = queryItems(of: request)
            var todos = todos
            if let completed = query["completed"].flatMap(Bool.init) {
                todos = todos.filter { $0.completed == completed }
            }
            if let limit = query["limit"].flatMap(Int.init) { todos = Array(todos.prefix(limit)) }
            return .json(encode(todos))
        case ("GET", 2) where segments == ["todos", "activity"]:
            // The to-dos being worked on, as Server-Sent Events; the stream ends when the
            // client comes back with the last ID.
            if request.header("Last-Event-ID") != nil { return TestResponse(status: 204) }
            let events = todos.map { "id: \($0.id)\nevent: progress\ndata: \(encode($0))\n\n" }.joined()
            return TestResponse(
                headers: [("Content-Type", "text/event-stream")], body: Data(("retry: 100\n\n" + events).utf8),
                behavior: .trickle(chunk: 64, every: .milliseconds(20)))
        case ("GET", 2) where segments[0] == "todos":
            guard let id = Int(segments[1]), let todo = todos.first(where: { $0.id == id }) else {
                return .json(#"{"message":"Todo \#(segments[1]) does not exist"}"#, status: 404)
            }
            return .json(encode(todo))
        case ("PUT", 3) where segments[0] == "todos" && segments[2] == "attachment":
            guard let id = Int(segments[1]), todos.contains(where: { $0.id == id }) else {
                return .json(#"{"message":"Todo \#(segments[1]) does not exist"}"#, status: 404)
            }
            attachments.files.withLockedValue { $0[id] = request.body }
            let checksum = request.body.reduce(UInt32(0)) { $0 &+ UInt32($1) }
            return .json(#"{"id":\#(id),"bytes":\#(request.body.count),"checksum":"\#(checksum)"}"#)
        case ("GET", 3) where segments[0] == "todos" && segments[2] == "attachment":
            guard let id = Int(segments[1]), let file = attachments.files.withLockedValue({ $0[id] }) else {
                return .json(#"{"message":"Todo \#(segments[1]) has no attachment"}"#, status: 404)
            }
            // Sent in pieces, so that a client can be seen reading it as it arrives.
            return TestResponse(
                headers: [("Content-Type", "application/octet-stream")], body: file,
                behavior: .trickle(chunk: max(1, file.count / 8), every: .milliseconds(10)))
        case ("PUT", 4) where segments[0] == "users" && segments[2] == "todos":
            guard request.query == "action=update" else {
                return .json(#"{"error":{"message":"unknown action"}}"#, status: 400)
            }
            guard var todo = try? JSONDecoder().decode(Todo.self, from: request.body) else {
                return .json(#"{"message":"the body is not a to-do"}"#, status: 422)
            }
            todo.userId = Int(segments[1]) ?? todo.userId
            todo.id = Int(segments[3]) ?? todo.id
            return .json(encode(todo))
        default:
            return .json(#"{"error":"no route for \#(request.method) \#(request.path)"}"#, status: 404)
        }
    }

    private static func queryItems(of request: RecordedRequest) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(string: request.uri)?.queryItems ?? [] { items[item.name] = item.value ?? "" }
        return items
    }

    private static func encode(_ value: some Encodable) -> String {
        String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }
}
