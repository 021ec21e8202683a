import Connect
import ConnectFutures
import ConnectTestServer
import Foundation
import Synchronization

/// One client shared by the tests that need no special configuration, as an app would share one.
///
/// Its timeout is five minutes, not the default minute: under ThreadSanitizer on two cores, with
/// every suite started at once, a task waits most of a minute for the cooperative pool, and a
/// streamed body's producer is such a task, so an upload could stall past a minute and fail a test
/// that checks something else. The tests that check a timeout set their own.
let sharedConnect: Connect = {
    var configuration = ConnectConfiguration()
    configuration.timeout = .seconds(300)
    return Connect(configuration: configuration)
}()

/// The result of a future, for tests.
func outcome<Value>(_ future: Future<Value>) async -> Result<Value, any Error> {
    await withCheckedContinuation { continuation in
        future.observe { continuation.resume(returning: $0) }
    }
}

/// The `ConnectError` a future failed with, or `nil`.
func connectError<Value>(_ future: Future<Value>) async -> ConnectError? {
    if case .failure(let error) = await outcome(future) { return error as? ConnectError }
    return nil
}

/// A connector for tests: any URL, method, headers and parameters.
struct TestConnector: Connector {
    var baseURL: URL
    var endpoint: String = ""
    var method: HTTPMethod = .get
    var headers: [HTTPHeader] = []
    var parameters: (any ParametersRepresentable)?
    var timeout: Duration?
    var cachePolicy: CachePolicy?
    var coalescesIdenticalRequests: Bool?

    init(
        _ server: LocalServer, _ endpoint: String = "", method: HTTPMethod = .get, headers: [HTTPHeader] = [],
        parameters: (any ParametersRepresentable)? = nil, timeout: Duration? = nil
    ) {
        baseURL = server.baseURL
        self.endpoint = endpoint
        self.method = method
        self.headers = headers
        self.parameters = parameters
        self.timeout = timeout
    }

    init(
        url: URL, endpoint: String = "", method: HTTPMethod = .get, headers: [HTTPHeader] = [],
        parameters: (any ParametersRepresentable)? = nil
    ) {
        baseURL = url
        self.endpoint = endpoint
        self.method = method
        self.headers = headers
        self.parameters = parameters
    }
}

struct AuthorizedTestConnector: Connector, AuthorizedConnector {
    var baseURL: URL
    var endpoint = "/secret"
    var method: HTTPMethod = .get
    var headers: [HTTPHeader] = [HTTPHeader(name: "X-Trace", value: "abc")]
    var parameters: (any ParametersRepresentable)? { nil }
    var authorizationToken: AuthorizationToken?
}

/// The seed's to-do connectors.
struct Todo: Codable, Sendable, Equatable {
    var userId: Int
    var id: Int
    var title: String
    var completed: Bool
}

enum TodoConnector: Connector {
    case get(id: Int)

    /// Tests point the seed's connector at their own server with `$server.withValue`.
    @TaskLocal static var server = URL(string: "http://127.0.0.1:1")!

    var baseURL: URL { Self.server }

    var endpoint: String {
        switch self {
        case .get: return "/todos/{id}"
        }
    }

    var method: HTTPMethod { .get }

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

struct AdvancedTodoConnector: Connector {
    var server: URL
    var userId: Int
    var todoId: Int
    var action: TodoAction
    var object: any Encodable

    var baseURL: URL { server }
    var endpoint: String { "/users/{userId}/todos/{todoId}" }
    var method: HTTPMethod { .put }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? {
        CompositeParameters(
            .path(key: "userId", value: "\(userId)"),
            .path(key: "todoId", value: "\(todoId)"),
            .query(key: "action", value: action.rawValue),
            .jsonObject(value: object)
        )
    }
}

/// Waits until `condition` holds, polling, for at most `limit`; returns whether it held.
/// For tests that must not assume how fast a loaded machine (or ThreadSanitizer) runs.
func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// What `ask` answers once `condition` holds of it, or its last answer after `limit`: asks
/// again every 10 ms, sleeping between (a server's count, a request's outcome while a state
/// settles). Errors `ask` throws end the wait.
func eventually<Value>(
    within limit: Duration = .seconds(60), _ ask: () async throws -> Value, until condition: (Value) -> Bool
) async throws -> Value {
    let deadline = ContinuousClock.now + limit
    var value = try await ask()
    while !condition(value), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
        value = try await ask()
    }
    return value
}

/// Sends `count` requests one after another, each started from the observer of the one before
/// (`request(index)`), and returns what `record` made of each value, in its observer, in order;
/// the first failure ends the run.
func oneAfterAnother<Value: Sendable, Element: Sendable>(
    _ count: Int, request: @escaping @Sendable (Int) -> Future<Value>, record: @escaping @Sendable (Value) -> Element
) async throws -> [Element] {
    try await withCheckedThrowingContinuation { continuation in
        let collected = Locked<[Element]>([])
        @Sendable func next(_ index: Int) {
            guard index < count else { return continuation.resume(returning: collected.withLock { $0 }) }
            request(index).observe { result in
                switch result {
                case .success(let value):
                    collected.withLock { $0.append(record(value)) }
                    next(index + 1)
                case .failure(let error):
                    continuation.resume(throwing: error)
                }
            }
        }
        next(0)
    }
}

/// A server that answers "ok" to `Authorization: Bearer fresh` and 401 to anything else.
func freshTokenServer() throws -> TestServer {
    try TestServer { request in
        request.header("Authorization") == "Bearer fresh" ? .text("ok") : .json(#"{"message":"expired"}"#, status: 401)
    }
}

/// Where a test server keeps its files in the temporary directory (its log, or nginx's whole
/// directory), under a name that carries the test process's ID: a test process that ends before
/// a server's `stop` has removed them leaves them behind, and the next test process that starts
/// a server removes what processes no longer running left.
func serverScratch(_ name: String) -> URL {
    _ = leftoversSwept
    return FileManager.default.temporaryDirectory.appendingPathComponent("\(serverScratchPrefix)\(getpid())-\(name)")
}

private let serverScratchPrefix = "connect-test-server-"

/// What `removeServerLeftovers(in:)` removes from the temporary directory, once a process.
private let leftoversSwept: Void = removeServerLeftovers(in: FileManager.default.temporaryDirectory)

/// Removes the servers' files in `directory` of test processes that are no longer running.
func removeServerLeftovers(in directory: URL) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
        guard name.hasPrefix(serverScratchPrefix),
            let owner = pid_t(name.dropFirst(serverScratchPrefix.count).prefix { $0 != "-" }),
            kill(owner, 0) == -1, errno == ESRCH
        else { continue }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }
}
