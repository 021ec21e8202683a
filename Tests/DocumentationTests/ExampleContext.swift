import Connect
import ConnectFutures
import ConnectOpenAPI
import Foundation
import TodoAPIClient
import Tracing

// The reader's own code that the documents' examples take for granted: their model types, their
// connectors, their app's functions and values. The examples are compiled (the
// DocumentationExamples plugin writes each as a file of this target), never run, so these only
// have to exist with the right types.

// MARK: - Models

struct Todo: Codable, Sendable {
    let id: Int
    let title: String
}

struct Order: Encodable, Sendable {
    let number: Int
}

struct Profile: Decodable, Sendable {
    let name: String
}

enum TodoAction: String, Sendable {
    case update
}

struct Delta: Decodable, Sendable {
    let text: String
}

struct JobProgress: Decodable, Sendable {
    let percent: Double
}

struct Session: Sendable {
    let token: String
}

struct Row: Sendable {
    let csvLine: String
}

struct Report: Sendable {
    let rows: [Row]
}

enum AppError: Error {
    case sessionExpired
    case server(String)
}

// MARK: - Connectors

enum TodoConnector: Connector {
    case get(id: Int)
    case delete(id: Int)

    var baseURL: URL { URL(string: "https://api.example.com")! }
    var endpoint: String { "/todos/{id}" }
    var method: HTTPMethod {
        switch self {
        case .get: .get
        case .delete: .delete
        }
    }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? {
        switch self {
        case .get(let id), .delete(let id): Parameter.path(key: "id", value: "\(id)")
        }
    }
}

enum ProfileConnector: Connector {
    case update(userId: Int)

    var baseURL: URL { URL(string: "https://api.example.com")! }
    var endpoint: String { "/users/{id}/profile" }
    var method: HTTPMethod { .post }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? {
        switch self {
        case .update(let userId): Parameter.path(key: "id", value: "\(userId)")
        }
    }
}

enum JobConnector: Connector {
    case progress(id: Int)

    var baseURL: URL { URL(string: "https://jobs.example.com")! }
    var endpoint: String { "/jobs/progress" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

enum PaymentConnector: Connector {
    case charge(String)

    var baseURL: URL { URL(string: "https://pay.example.com")! }
    var endpoint: String { "/charges" }
    var method: HTTPMethod { .post }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

enum PageConnector: Connector {
    case home

    var baseURL: URL { URL(string: "https://www.example.com")! }
    var endpoint: String { "/" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

enum BucketConnector: Connector {
    case put(key: String)

    var baseURL: URL { URL(string: "https://storage.example.com")! }
    var endpoint: String { "/bucket/object" }
    var method: HTTPMethod { .put }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

enum VideoConnector: Connector {
    case episode(Int)

    var baseURL: URL { URL(string: "https://video.example.com")! }
    var endpoint: String { "/episode" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

enum FeedConnector: Connector {
    case live

    var baseURL: URL { URL(string: "https://feeds.example.com")! }
    var endpoint: String { "/live" }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

enum ChatConnector: Connector {
    case room(String)

    var baseURL: URL { URL(string: "wss://chat.example.com")! }
    var endpoint: String {
        switch self {
        case .room(let name): "/rooms/\(name)"
        }
    }
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [HTTPHeader(name: "Sec-WebSocket-Protocol", value: "chat.v2, chat.v1")] }
    var parameters: (any ParametersRepresentable)? { nil }
}

struct ChatMessage: Codable, Sendable {
    var user: String
    var text: String
}

// MARK: - The app's other parts

struct FeedErrorHandler: ErrorHandlerProtocol {
    func handle(response: [String: Any]) -> (any Error)? { nil }
}

struct Keychain: Sendable {
    let accessToken = "stored-token"
}

struct AuthService: Sendable {
    func refreshAccessToken() async throws -> String { "refreshed-token" }
}

struct FeedParser: Sendable {
    func feed(_ chunk: Data) {}
}

/// A file's bytes in chunks: a body that can be produced again.
struct FileChunks: AsyncSequence, Sendable {
    let path: String

    func makeAsyncIterator() -> AsyncStream<Data>.Iterator {
        AsyncStream<Data> { $0.finish() }.makeAsyncIterator()
    }
}

func lookUp(_ value: Int) -> Future<Int> { Future(value: value) }
func showOffline() {}
func show(_ message: ChatMessage) {}
func reconnectLater() {}
func showNotFound() {}
func show(_ message: String) {}
func offerRetry() {}
func reportDecodingProblem(at path: String) {}

// MARK: - Values

let connect = Connect.default
let connector = TodoConnector.get(id: 1)
let error: any Error = AppError.sessionExpired
let secret = "api-key"
let keychain = Keychain()
let authService = AuthService()
let authenticator = TokenAuthenticator(token: keychain.accessToken) { try await authService.refreshAccessToken() }
let session = Session(token: "session-token")
let order = "order-1"
let tracer = NoOpTracer()
let client = Client(serverURL: URL(string: "https://api.example.com")!, transport: ConnectTransport(connect))
let handle = FileHandle.standardOutput
let snakeCaseDecoder = JSONDecoder()
let report = Report(rows: [])
let parser = FeedParser()
let size = 1 << 20
let path = "/tmp/export.csv"
let url = URL(string: "https://api.example.com/health")!
let profileURL = URL(string: "https://api.example.com/me")!
let cachesDirectory = URL(fileURLWithPath: "/tmp/caches")
let exportURL = URL(fileURLWithPath: "/tmp/export.zip")
let episodeURL = URL(fileURLWithPath: "/tmp/episode-3.mp4")
let recordingURL = URL(fileURLWithPath: "/tmp/clip.mp4")
let cdnURL = URL(string: "https://cdn.example.net")!
let corporateCA = URL(fileURLWithPath: "/etc/ssl/corporate-ca.pem")
let pinnedCertificatesPEM = URL(fileURLWithPath: "/etc/ssl/pinned.pem")
let certURL = URL(fileURLWithPath: "/etc/ssl/client.pem")
let keyURL = URL(fileURLWithPath: "/etc/ssl/client.key")
let jpegData = Data()

/// The configuration the examples that continue another one's settings go on changing.
nonisolated(unsafe) var configuration = ConnectConfiguration()
