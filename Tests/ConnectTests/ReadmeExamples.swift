import ConnectFutures
import ConnectOpenAPI
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Testing
import TodoAPIClient
import Tracing

@testable import Connect

// The examples of the README and of the DocC articles the README's manual moved into
// (Endpoints, SendingRequests, ErrorHandling, AdaptingAndRetrying, UploadsAndDownloads, EventStreams,
// Testing, Futures and the ecosystem articles' "In short" sections), compiled with the tests so
// that they cannot drift from the API.
// They are type-checked, not run (the README's hosts do not exist here); the behaviour they
// show is tested elsewhere.

private enum ReadmeTodoConnector: Connector {
    case get(id: Int)

    var baseURL: URL { URL(string: "https://api.example.com")! }
    var endpoint: String { "/todos/{id}" }
    var method: HTTPMethod { .get }
    var parameters: (any ParametersRepresentable)? {
        switch self {
        case .get(let id): return Parameter.path(key: "id", value: "\(id)")
        }
    }
}

private enum ReadmeTodoAction: String { case update }

private struct ReadmeLegacyUpload: Connector {
    var baseURL: URL { URL(string: "https://legacy.example.com")! }
    var endpoint: String { "/upload" }
    var method: HTTPMethod { .post }
    var httpVersion: HTTPVersionPolicy? { .http1Only }
}

private enum ReadmeAdvancedTodoConnector: Connector {
    case update(userId: Int, todoId: Int, action: ReadmeTodoAction, object: any Encodable)

    var baseURL: URL { URL(string: "https://myserver.com")! }
    var endpoint: String { "/users/{userId}/todos/{todoId}" }
    var method: HTTPMethod { .put }
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

private struct ReadmeWritableTodo: Encodable, JSONWritable {
    let id: Int
    let title: String
    let tags: [String]
    let note: String?

    func write(to json: inout JSONWriter) {
        json.writeObject { json in
            json.write(id, forKey: "id")
            json.write(title, forKey: "title")
            json.write(tags, forKey: "tags")
            json.write(note, forKey: "note")  // left out when nil, as Encodable does
        }
    }
}

private struct ReadmeProfileConnector: Connector, AuthorizedConnector {
    let token: String
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var endpoint: String { "/me" }
    var method: HTTPMethod { .get }
    var authorizationToken: AuthorizationToken? { .bearer(token: token) }
}

private struct ReadmeChatCompletion: Connector {
    let prompt: String
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var endpoint: String { "/v1/chat/completions" }
    var method: HTTPMethod { .post }
    var parameters: (any ParametersRepresentable)? { Parameter.jsonObject(value: ["prompt": prompt, "stream": "true"]) }
}

private struct ReadmeDelta: Decodable, Sendable { let text: String }
private struct ReadmeJobProgress: Decodable, Sendable { let percent: Double }

/// The README's redirect handler that also allows a downgrade.
private struct ReadmeAllowsPlainHTTP: RedirectHandler {
    func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision { .follow }
    func allowsInsecureRedirect(_ response: Response, of request: Request, to proposed: Request) -> Bool { true }
}

private struct ReadmePaging: ParametersRepresentable {
    var page: Int, size: Int
    func encode(into parameters: inout EncodedParameters) throws {
        parameters.appendQuery(name: "page", value: "\(page)")
        parameters.appendQuery(name: "per_page", value: "\(size)")
    }
}

private enum ReadmeAppError: Error { case sessionExpired, server(String) }

private struct ReadmeHandler: ErrorHandlerProtocol {
    func handle(response: [String: Any]) -> (any Error)? {
        if response["code"] as? String == "TOKEN_EXPIRED" { return ReadmeAppError.sessionExpired }
        return ReadmeAppError.server(response["reason"] as? String ?? "unknown")
    }
}

private struct ReadmeStatusAwareHandler: ErrorHandlerProtocol {
    func handle(response: [String: Any]) -> (any Error)? { nil }
    func handle(failure: FailedExchange) -> (any Error)? {
        failure.statusCode == 401 ? ReadmeAppError.sessionExpired : ErrorHandler().handle(failure: failure)
    }
}

private struct ReadmeCachedFeed: Connector {
    var baseURL: URL { URL(string: "https://feeds.example.com")! }
    var endpoint: String { "/latest" }
    var method: HTTPMethod { .get }
    var acceptedStatusCodes: AcceptedStatusCodes? { .successful + [304] }
    var errorHandler: (any ErrorHandlerProtocol)? { ReadmeHandler() }
}

private struct ReadmeAPIKey: RequestAdapter {
    let key: String
    func adapt(_ request: Request) async throws -> Request {
        var request = request
        request.setHeader(HTTPHeader(name: "X-API-Key", value: key))
        return request
    }
}

private struct ReadmeOKFlag: Interceptor {
    func process(_ result: inout Result<Response, any Error>, for request: Request) async {
        guard case .success(let response) = result,
            let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            json["ok"] as? Bool == false
        else { return }
        result = .failure(ReadmeAppError.server(json["error"] as? String ?? "unknown"))
    }
}

private struct ReadmeStayOnOurDomains: RedirectHandler {
    func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision {
        proposed.url.host?.hasSuffix("example.com") == true ? .follow : .refuse
    }
}

private extension MimeType {
    static let myAwesomeType = MimeType(rawValue: "awesome/type")
}

/// Never called: it only has to compile.
private func readmeExamples(
    connect: Connect, jpegData: Data, recordingURL: URL, exportURL: URL, episodeURL: URL
) async throws {
    Connect.default.request(ReadmeTodoConnector.get(id: 123), debugResponse: true)
        .decoded(toType: Todo.self)
        .observe { result in
            switch result {
            case .success(let todo): print(todo)
            case .failure(let error): print(error)
            }
        }
    let todo = try await Connect.default.request(ReadmeTodoConnector.get(id: 123)).decoded(toType: Todo.self).value
    _ = todo
    _ = connect.request(
        ReadmeAdvancedTodoConnector.update(
            userId: 1, todoId: 2, action: .update, object: Todo(userId: 2, id: 1, title: "Test Todo", completed: false))
    )
    let writableTodo = ReadmeWritableTodo(id: 1, title: "t", tags: [], note: nil)
    _ = connect.request(ReadmeAdvancedTodoConnector.update(userId: 1, todoId: 2, action: .update, object: writableTodo))
    _ = try RequestBody.json(writableTodo)
    _ = connect.request(ReadmeProfileConnector(token: "t"))
    _ = ReadmePaging(page: 1, size: 20)

    _ = connect.response(ReadmeTodoConnector.get(id: 1))
    _ = connect.send(Request(method: .get, url: URL(string: "https://api.example.com/health")!))
    connect.cancelAllRequests()
    _ = try await connect.request(ReadmeTodoConnector.get(id: 1)).decoded(toType: Todo.self).value

    var configuration = ConnectConfiguration()
    configuration.timeout = .seconds(30)
    configuration.connectTimeout = .seconds(5)
    configuration.callbackQueue = .main
    configuration.maximumResponseBodySize = 8 << 20
    configuration.maximumRedirects = 10
    configuration.maximumConnectionsPerHost = 64
    configuration.acceptedStatusCodes = .successful + [304]
    configuration.environment = .development(URL(string: "http://localhost:8080")!)
    configuration.environment.hostOverrides["images.example.com"] = URL(string: "https://cdn.example.net")!
    configuration.defaultHeaders = [.accept("application/json")]
    configuration.defaultQueryItems = [QueryItem(name: "locale", value: "en")]
    configuration.jsonEncoder.dateEncodingStrategy = .iso8601
    configuration.cookies = .inMemory
    configuration.proxy = .http(host: "proxy.corp", port: 3128, username: "me", password: "secret")
    configuration.proxy = .socks5(host: "127.0.0.1", port: 1080)
    configuration.proxy?.bypassHosts = ["localhost", ".internal.example.com"]
    configuration.tls.trustedCertificates = URL(fileURLWithPath: "/etc/corporate-ca.pem")
    configuration.tls.pinnedPublicKeys = ["sha256//8DLnRMDOqwLxrwyLIzczSpbEA9DPCAg5Xd4Vg5XQI/0="]
    configuration.tls.pinnedCertificates = URL(fileURLWithPath: "/etc/pinned.pem")
    configuration.tls.clientCertificate = ClientCertificate(
        certificate: URL(fileURLWithPath: "c.pem"), privateKey: URL(fileURLWithPath: "c.key"))
    configuration.redirectHandler = ReadmeStayOnOurDomains()
    configuration.httpVersion = .http2WithPriorKnowledge
    _ = Connect(configuration: configuration)
    _ = Connect(errorHandler: ReadmeHandler())
    _ = Connect(errorHandler: ReadmeStatusAwareHandler())
    _ = connect.request(ReadmeCachedFeed())

    do {
        _ = try await connect.request(ReadmeTodoConnector.get(id: 1)).decoded(toType: Todo.self).value
    } catch let error as ConnectError {
        switch error {
        case .http(let failure) where failure.statusCode == 404: break
        case .http(let failure): print(failure.message ?? failure.description)
        case .timedOut, .transport: break
        case .decoding(let failure): print(failure.codingPath)
        case .cancelled: break
        default: print(error.description)
        }
    }

    _ = Connect(middleware: ConnectMiddleware(adapters: [ReadmeAPIKey(key: "secret")]))
    _ = Connect(
        middleware: ConnectMiddleware(
            retrier: RetryPolicy(
                maximumAttempts: 4,
                baseDelay: .milliseconds(200),
                maximumDelay: .seconds(10),
                deadline: .seconds(30)
            )))
    let authenticator = TokenAuthenticator(token: "stored") { "refreshed" }
    _ = Connect(middleware: ConnectMiddleware(adapters: [authenticator]))  // it adapts and retries
    await authenticator.setToken("signed-in-again")
    _ = Connect(
        middleware: ConnectMiddleware(
            interceptors: [ReadmeOKFlag()], monitors: [LoggingMonitor(logger: Logger(label: "api"))]))

    let avatar = File(name: "me.jpg", key: "avatar", mimeType: .jpg, data: jpegData)
    let video = File(name: "clip.mp4", key: "video", mimeType: .mp4, fileURL: recordingURL)
    _ = connect.upload(files: [avatar, video], to: ReadmeProfileConnector(token: "t")).decoded(toType: Todo.self)
    _ = connect.upload(fileAt: exportURL, contentType: "application/zip", to: ReadmeProfileConnector(token: "t"))
    _ = MimeType.myAwesomeType

    let (updates, progress) = TransferProgress.stream()
    let download = connect.download(ReadmeTodoConnector.get(id: 3), to: episodeURL, progress: progress)
    for await update in updates { print(update.fractionCompleted ?? 0) }
    _ = try await download.value.location
    _ = connect.download(
        ReadmeTodoConnector.get(id: 3), to: episodeURL, resuming: true, progress: ProgressHandler { print($0) })

    let feed = connect.stream(ReadmeTodoConnector.get(id: 1))
    print(try await feed.response.statusCode)
    for try await chunk in feed { print(chunk.count) }

    _ = connect.response(ReadmeTodoConnector.get(id: 1)).decoded(
        with: JSONResponseDecoder(Todo.self, decoder: JSONDecoder()))
    _ = connect.response(ReadmeTodoConnector.get(id: 1)).text()
    _ = connect.request(ReadmeTodoConnector.get(id: 1)).decoded(toType: EmptyResponse.self)
    _ = HTTPTask.requestParameters(["q": "swift"], encoding: .queryString)
    _ = HTTPTask.requestParameters(["q": "swift"], .url)

    // Configuration, redirects and errors.
    var secured = ConnectConfiguration()
    secured.sensitiveHeaders.insert("X-Tenant-Secret")
    secured.jsonDecoder.keyDecodingStrategy = .convertFromSnakeCase
    secured.redirectHandler = ReadmeAllowsPlainHTTP()
    _ = RetryPolicy(maximumAttempts: 4).maximumRetries
    if case .transport(let failure) = await connectError(connect.request(ReadmeTodoConnector.get(id: 1))),
        failure.kind == .connectionRefused
    {
        print("offline")
    }

    // Event streams and JSON Lines.
    var answer = ""
    for try await event in connect.events(ReadmeChatCompletion(prompt: "Hello")) {
        if event.data == "[DONE]" { break }
        answer += try JSONDecoder().decode(ReadmeDelta.self, from: Data(event.data.utf8)).text
    }
    for try await progress in connect.lines(ReadmeTodoConnector.get(id: 7)).decodedLines(of: ReadmeJobProgress.self) {
        print(progress.percent)
    }
    _ = connect.events(ReadmeTodoConnector.get(id: 1), reconnection: ReconnectionPolicy(maximumAttempts: 10))
    _ = connect.events(ReadmeTodoConnector.get(id: 1), reconnection: .never)

    let mock = MockTransport(behavior: .delayed(.milliseconds(300)))
    mock.register(
        .json(#"{"userId":1,"id":1,"title":"Mocked","completed":false}"#), for: ReadmeTodoConnector.get(id: 1))
    mock.register(.status(503), .json("{}"), when: { $0.url.path == "/health" })
    mock.register(.failure(ConnectError.timedOut("offline")), when: { $0.method == .post })
    _ = Connect(transport: mock)
    _ = mock.requests.map(\.url.path)

    let promise = Promise<Int>()
    promise.future
        .map { $0 * 2 }
        .flatMap { value in Future(value: value + 1) }
        .recover { _ in 0 }
        .timeout(after: .seconds(5))
        .observe { result in print(result) }
    promise.succeed(21)
    _ = Future<Int>.retry(attempts: 3, delay: .milliseconds(200)) { Future(value: 1) }
}

private struct ReadmeRow: Sendable { let csvLine: String }
private struct ReadmeReport: Sendable { let rows: [ReadmeRow] }

/// `count` bytes of a file, read in chunks: the README's replayable body source.
private struct ReadmeFileChunks: AsyncSequence, Sendable {
    let path: String
    func makeAsyncIterator() -> AsyncStream<Data>.Iterator {
        let handle = FileHandle(forReadingAtPath: path)
        return AsyncStream<Data> { continuation in
            while let chunk = try? handle?.read(upToCount: 64 << 10), !chunk.isEmpty { continuation.yield(chunk) }
            continuation.finish()
        }.makeAsyncIterator()
    }
}

private enum ReadmePaymentConnector: Connector {
    case charge(String)
    var baseURL: URL { URL(string: "https://pay.example.com")! }
    var endpoint: String { "/charges" }
    var method: HTTPMethod { .post }
}

/// The README's sections on streamed request bodies and the server-Swift ecosystem.
private func readmeEcosystemExamples(
    connect: Connect, report: ReadmeReport, exportURL: URL, size: Int, path: String,
    otelTracer: any Tracer, order: String
) async throws {
    // Streaming a request body
    let rows = AsyncStream<Data> { continuation in
        for row in report.rows { continuation.yield(Data(row.csvLine.utf8)) }
        continuation.finish()
    }
    let request = Request(method: .post, url: exportURL, body: .stream(rows, contentType: "text/csv"))
    let response = try await connect.send(request).value  // sent chunked: no length given
    _ = response
    let body = RequestBody.stream(count: size, replayable: { ReadmeFileChunks(path: path) })
    _ = body

    // OpenAPI clients
    let client = Client(serverURL: try Servers.Server1.url(), transport: ConnectTransport(connect))
    let todos = try await client.listTodos(query: .init(completed: true)).ok.body.json
    _ = todos
    switch try await client.getTodo(path: .init(id: 42)) {
    case .ok(let ok): print(try ok.body.json)
    case .notFound(let missing): print(try missing.body.json.message)  // the documented 404
    case .undocumented(let status, _): print("status \(status)")
    }

    // swift-http-types
    let standardRequest = try Request(
        HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/todos?limit=5"))
    let standardResponse = try await connect.send(standardRequest).value
    let standard: HTTPResponse = standardResponse.httpResponse
    let fields = try HTTPFields(standardRequest.headers)
    _ = (standard, fields)

    // Tracing
    InstrumentationSystem.bootstrap(otelTracer)  // before the first Connect is made
    try await withSpan("checkout") { _ in
        _ = try await Connect.default.request(ReadmePaymentConnector.charge(order)).value
    }
}

@Suite("README")
struct ReadmeTests {
    /// The examples above compiled; this only keeps the file honest about being part of a suite.
    @Test func examplesCompile() {
        #expect(MimeType.myAwesomeType.rawValue == "awesome/type")
    }
}
