import Connect
import Foundation

/// The seed's `Todo` model.
struct Todo: Codable, Sendable, CustomStringConvertible {
    var userId: Int
    var id: Int
    var title: String
    var completed: Bool

    var description: String { "Todo #\(id) of user \(userId): \"\(title)\"\(completed ? ", done" : "")" }
}

/// The seed's first connector, pointed at the demo's server.
enum TodoConnector: Connector {
    case get(id: Int)

    /// Set once by the demo before any request, from the main task.
    nonisolated(unsafe) static var baseURL = URL(string: "http://127.0.0.1")!

    var baseURL: URL { Self.baseURL }

    var endpoint: String {
        switch self {
        case .get: return "/todos/{id}"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .get: return .get
        }
    }

    var headers: [HTTPHeader] { [] }

    var parameters: (any ParametersRepresentable)? {
        switch self {
        case .get(let id): return Parameter.path(key: "id", value: "\(id)")
        }
    }
}

enum TodoAction: String {
    case update
}

/// The seed's `CompositeParameters` example.
enum AdvancedTodoConnector: Connector {
    case update(userId: Int, todoId: Int, action: TodoAction, object: any Encodable)

    var baseURL: URL { TodoConnector.baseURL }

    var endpoint: String {
        switch self {
        case .update: return "/users/{userId}/todos/{todoId}"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .update: return .put
        }
    }

    var headers: [HTTPHeader] { [] }

    var parameters: (any ParametersRepresentable)? {
        switch self {
        case .update(let userId, let todoId, let action, let object):
            return CompositeParameters(
                .path(key: "userId", value: "\(userId)"),
                .path(key: "todoId", value: "\(todoId)"),
                .query(key: "action", value: action.rawValue),
                .jsonObject(value: object)
            )
        }
    }
}

/// A connector with a mistake: its path parameter has no `{key}` in the endpoint.
struct BrokenConnector: Connector {
    var baseURL: URL { TodoConnector.baseURL }
    var endpoint: String { "/todos" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { Parameter.path(key: "id", value: "1") }
}

/// The embedded API's activity feed, a `text/event-stream`.
struct ActivityConnector: Connector {
    var baseURL: URL { TodoConnector.baseURL }
    var endpoint: String { "/todos/activity" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

/// A chat room on the demo's WebSocket server, offering the `chat` subprotocol.
struct ChatConnector: Connector {
    var baseURL: URL
    var endpoint: String { "/rooms/demo" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat")] }
    var parameters: (any ParametersRepresentable)? { nil }
}
