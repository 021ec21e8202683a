import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect
@testable import ConnectWire

@Suite("Requests over real sockets", .timeLimit(.minutes(3)))
struct RequestTests {
    @Test func seedExampleDecodesATodo() async throws {
        let server = try TestServer { request in
            #expect(request.method == "GET")
            return .json(#"{"userId":1,"id":123,"title":"Write Connect","completed":false}"#)
        }
        defer { server.shutdown() }
        let todo = try await TodoConnector.$server.withValue(server.baseURL) {
            try await sharedConnect.request(TodoConnector.get(id: 123), debugResponse: true)
                .decoded(toType: Todo.self)
                .value
        }
        #expect(todo == Todo(userId: 1, id: 123, title: "Write Connect", completed: false))
        #expect(server.requests.map(\.uri) == ["/todos/123"])
    }

    @Test func compositeParametersProduceTheSeedsCall() async throws {
        let server = try TestServer { _ in .json("{}") }
        defer { server.shutdown() }
        let todo = Todo(userId: 2, id: 1, title: "Test Todo", completed: false)
        let connector = AdvancedTodoConnector(
            server: server.baseURL, userId: 1, todoId: 2, action: .update, object: todo)
        _ = try await sharedConnect.request(connector).value
        let received = try #require(server.requests.first)
        #expect(received.method == "PUT")
        #expect(received.uri == "/users/1/todos/2?action=update")
        #expect(received.header("Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(Todo.self, from: received.body) == todo)
        #expect(received.header("Content-Length") == "\(received.body.count)")
    }

    @Test(arguments: [
        ("a/b", "a%2Fb"), ("..", "%2E%2E"), (".", "%2E"), ("x?y=1", "x%3Fy%3D1"), ("#frag", "%23frag"),
        ("100%", "100%25"), ("two words", "two%20words"), ("ünï", "%C3%BCn%C3%AF"),
        ("...", "..."), ("a.b", "a.b")
    ])
    func pathValuesStayOneSegment(value: String, expected: String) async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let connector = TestConnector(
            server, "/files/{name}/meta", parameters: Parameter.path(key: "name", value: value))
        _ = try await sharedConnect.request(connector).value
        #expect(server.requests.first?.uri == "/files/\(expected)/meta")
    }

    @Test func queryValuesAreEncodedPerRFC3986AndKeepOrder() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let connector = TestConnector(
            server, "/search",
            parameters: CompositeParameters([
                Parameter.query(key: "q", value: "a b+c&d=e"),
                Parameter.query(key: "tag", value: "x"),
                Parameter.query(key: "tag", value: "y"),
                Parameter.query(key: "emoji", value: "☕️"),
                Parameter.query(key: "safe", value: "A-z_0.9~")
            ]))
        _ = try await sharedConnect.request(connector).value
        #expect(
            server.requests.first?.query == "q=a%20b%2Bc%26d%3De&tag=x&tag=y&emoji=%E2%98%95%EF%B8%8F&safe=A-z_0.9~")
    }

    @Test func baseURLPathAndQueryAreKept() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let base = URL(string: "\(server.baseURL.absoluteString)/api/v2/?key=1")!
        let connector = TestConnector(
            url: base, endpoint: "users", parameters: Parameter.query(key: "page", value: "2"))
        _ = try await sharedConnect.request(connector).value
        #expect(server.requests.first?.uri == "/api/v2/users?key=1&page=2")
    }

    @Test func unfilledOrUnusedPathKeysFailBeforeSending() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let missing = await connectError(
            sharedConnect.request(
                TestConnector(server, "/users/{id}/todos/{todoId}", parameters: Parameter.path(key: "id", value: "1"))))
        #expect(
            missing
                == .invalidRequest(#"no path parameter fills {todoId} in the endpoint "/users/{id}/todos/{todoId}""#))
        let unused = await connectError(
            sharedConnect.request(TestConnector(server, "/users", parameters: Parameter.path(key: "id", value: "1"))))
        #expect(unused == .invalidRequest(#"the path parameter "id" has no {id} in the endpoint "/users""#))
        let twice = await connectError(
            sharedConnect.request(
                TestConnector(
                    server, "/u/{id}",
                    parameters: CompositeParameters(.path(key: "id", value: "1"), .path(key: "id", value: "2")))))
        #expect(twice == .invalidRequest(#"the path parameter "id" is given twice"#))
        let unclosed = await connectError(
            sharedConnect.request(TestConnector(server, "/u/{id", parameters: Parameter.path(key: "id", value: "1"))))
        #expect(unclosed?.description.contains("without a closing") == true)
        #expect(server.requests.isEmpty)
    }

    @Test(arguments: [
        HTTPHeader(name: "X-Evil", value: "a\r\nX-Injected: 1"),
        HTTPHeader(name: "X-Evil", value: "line\nbreak"),
        HTTPHeader(name: "X-Evil", value: "nul\0byte"),
        HTTPHeader(name: "Bad Name", value: "v"),
        HTTPHeader(name: "X-Evil\r\n", value: "v"),
        HTTPHeader(name: "", value: "v")
    ])
    func unsafeHeadersAreNeverSent(header: HTTPHeader) async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let error = await connectError(sharedConnect.request(TestConnector(server, "/", headers: [header])))
        guard case .invalidRequest? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(server.requests.isEmpty)
    }

    @Test func headerNamesCompareIgnoringASCIICaseOnly() {
        let header = HTTPHeader(name: "Content-Type", value: "text/plain")
        #expect(header.hasName("content-type") && header.hasName("CONTENT-TYPE") && header.hasName("Content-Type"))
        #expect(!header.hasName("Content-Typ") && !header.hasName("Content-Types") && !header.hasName("Content_Type"))
        // Folding is for letters only: these tchars differ by the case bit but are not letters.
        #expect(!HTTPHeader(name: "X^", value: "").hasName("X~"))
        #expect(!HTTPHeader(name: "X@", value: "").hasName("X`"))
        #expect([header].value(for: "CONTENT-type") == "text/plain")
        // The same rule for headers still held as received bytes.
        var raw = RawHeaders()
        for line in ["X^: caret\r\n", "Content-Type: text/plain\r\n", "\r\n"] {
            Array(line.utf8).withUnsafeBytes { raw.append(line: $0) }
        }
        #expect(
            raw.value(for: "x~") == nil && raw.value(for: "X^") == "caret"
                && raw.value(for: "content-TYPE") == "text/plain")
        #expect(raw.parsed() == [HTTPHeader(name: "X^", value: "caret"), .contentType("text/plain")])
        #expect(
            Request.isHTTPScheme("HTTP") && Request.isHTTPScheme("Https") && !Request.isHTTPScheme("ftp")
                && !Request.isHTTPScheme("httpx"))
    }

    @Test func requestsAreValues() {
        let original = Request(
            method: .post, url: URL(string: "http://127.0.0.1/a")!, headers: [.accept("text/plain")],
            timeout: .seconds(3))
        var copy = original
        copy.url = URL(string: "http://127.0.0.1/b")!
        copy.setHeader(.accept("application/json"))
        copy.headers.append(HTTPHeader(name: "X-Extra", value: "1"))
        copy.method = .put
        copy.timeout = nil
        #expect(
            original.url.absoluteString == "http://127.0.0.1/a" && original.method == .post
                && original.timeout == .seconds(3))
        #expect(original.headers == [.accept("text/plain")])
        #expect(copy.url.absoluteString == "http://127.0.0.1/b" && copy.method == .put && copy.timeout == nil)
        #expect(copy.headers == [.accept("application/json"), HTTPHeader(name: "X-Extra", value: "1")])
        var second = copy
        second.headers.removeAll()
        #expect(copy.headers.count == 2 && second.headers.isEmpty)
    }

    @Test func parsedURLsStayBoundedAndRight() throws {
        let cache = ParsedURLs()
        for index in 0..<(ParsedURLs.capacity * 2 + 10) {
            let entry = try #require(cache.entry(for: "http://127.0.0.1/items/\(index)"))
            #expect(entry.url.path == "/items/\(index)" && entry.problem == nil)
        }
        #expect(
            cache.entry(for: "ftp://127.0.0.1/file")?.problem
                == #"the URL "ftp://127.0.0.1/file" is not http, https, http+unix, https+unix, ws or wss"#
        )
        #expect(
            cache.entry(for: "ftp://127.0.0.1/file")?.problem
                == #"the URL "ftp://127.0.0.1/file" is not http, https, http+unix, https+unix, ws or wss"#
        )
        #expect(cache.entry(for: "http://exa mple.com/") == nil)
    }

    /// Everything a request carries can be given when it is made, not only set afterwards.
    @Test func theInitializerTakesEveryProperty() {
        let request = Request(
            method: .put, url: URL(string: "http://localhost/v1.43/info")!, headers: [.contentType("text/plain")],
            body: .data(Data("x".utf8)), timeout: .seconds(3), allowsRetry: true, httpVersion: .http1Only,
            credentials: Credentials(username: "u", password: "p"), unixSocketPath: "/var/run/docker.sock",
            connectTo: [ConnectTo(host: "localhost", port: 80, connectHost: "127.0.0.1", connectPort: 8080)],
            cachePolicy: .reloadIgnoringLocalCacheData)
        #expect(request.method == .put && request.timeout == .seconds(3) && request.allowsRetry == true)
        #expect(request.httpVersion == .http1Only)
        #expect(request.credentials?.username == "u")
        #expect(request.unixSocketPath == "/var/run/docker.sock")
        #expect(request.connectTo.count == 1)
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(Request(url: URL(string: "https://a.example")!).cachePolicy == nil)
    }

    @Test func invalidMethodsAndSchemesAreRejected() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let badMethod = await connectError(sharedConnect.request(TestConnector(server, "/", method: "GE T")))
        #expect(badMethod == .invalidRequest(#"the method "GE T" is not a valid HTTP token"#))
        let ftp = await connectError(sharedConnect.request(TestConnector(url: URL(string: "ftp://127.0.0.1/file")!)))
        #expect(
            ftp
                == .invalidRequest(
                    #"the URL "ftp://127.0.0.1/file" is not http, https, http+unix, https+unix, ws or wss"#))
        let noHost = await connectError(sharedConnect.request(TestConnector(url: URL(string: "http://:80/")!)))
        #expect(noHost == .invalidRequest(#"the URL "http://:80/" has no host"#))
        // Foundation accepts the port; Connect names it (libcurl's own text names neither it nor
        // the URL).
        let badPort = await connectError(
            sharedConnect.request(TestConnector(url: URL(string: "http://127.0.0.1:99999/")!)))
        #expect(
            badPort
                == .invalidRequest(#"the URL "http://127.0.0.1:99999/" has the port 99999; a TCP port is 0 to 65535"#))
        #expect(server.requests.isEmpty)
    }

    @Test func methodsAreSentAsGiven() async throws {
        let server = try TestServer { request in .text("m=\(request.method)") }
        defer { server.shutdown() }
        for method: HTTPMethod in [.get, .post, .put, .patch, .delete, .options, "PROPFIND"] {
            let body = try await sharedConnect.request(TestConnector(server, "/m", method: method)).value
            #expect(String(decoding: body, as: UTF8.self) == "m=\(method.rawValue)")
        }
        let head = try await sharedConnect.response(TestConnector(server, "/m", method: .head)).value
        #expect(head.statusCode == 200 && head.body.isEmpty)
        #expect(
            server.requests.map(\.method) == ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND", "HEAD"])
        #expect(server.requests[1].header("Content-Length") == "0")
    }

    @Test(arguments: [
        (AuthorizationToken.bearer(token: "t0k3n"), "Bearer t0k3n"),
        (AuthorizationToken.basic(username: "ada", password: "pa:ss"), "Basic YWRhOnBhOnNz"),
        (AuthorizationToken.custom(token: "Token abc"), "Token abc")
    ])
    func authorizationTokensAreSent(token: AuthorizationToken, expected: String) async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let connector = AuthorizedTestConnector(
            baseURL: server.baseURL, headers: [.authorization("stale")], authorizationToken: token)
        _ = try await sharedConnect.request(connector).value
        let received = try #require(server.requests.first)
        #expect(received.headers.filter { $0.0.lowercased() == "authorization" }.map(\.1) == [expected])
    }

    @Test func wholeResponseCarriesStatusHeadersAndTimings() async throws {
        let server = try TestServer { _ in
            TestResponse(
                status: 201, headers: [("X-Answer", "42"), ("Content-Type", "text/plain")], body: Data("made".utf8))
        }
        defer { server.shutdown() }
        let response = try await sharedConnect.response(TestConnector(server, "/things", method: .post)).value
        #expect(response.statusCode == 201)
        #expect(response.header("x-answer") == "42")
        #expect(response.body == Data("made".utf8))
        #expect(response.url.absoluteString == server.baseURL.absoluteString + "/things")
        #expect(response.httpVersion == "1.1")
        #expect(response.metrics.total > .zero)
        #expect(response.metrics.firstByte <= response.metrics.total)
        // Read from the handle the transfer ran on, after the transfer thread let it go.
        #expect(response.metrics.bytesReceived == 4)
        #expect(response.metrics.bytesSent > "POST /things HTTP/1.1\r\n".utf8.count)
    }

    @Test func responseHeadersKeepOrderRepeatsAndTrimmedValues() async throws {
        let server = try TestServer { _ in
            TestResponse(
                headers: [
                    ("Set-Cookie", "a=1"), ("X-Padded", " \tpadded value\t "), ("Set-Cookie", "b=2"), ("X-Empty", "")
                ], body: Data("ok".utf8))
        }
        defer { server.shutdown() }
        let response = try await sharedConnect.response(TestConnector(server, "/")).value
        let custom = response.headers.filter { ["set-cookie", "x-padded", "x-empty"].contains($0.name.lowercased()) }
        #expect(custom.map(\.name) == ["Set-Cookie", "X-Padded", "Set-Cookie", "X-Empty"])
        #expect(custom.map(\.value) == ["a=1", "padded value", "b=2", ""])
        #expect(response.header("SET-COOKIE") == "a=1")
        #expect(response.header("x-padded") == "padded value")
        #expect(response.header("x-empty") == "")
        #expect(response.header("X-Missing") == nil)
        #expect(response.headers.contains { $0.hasName("Content-Length") && $0.value == "2" })
        // A copy shares the parsed headers and reads the same.
        let copy = response
        #expect(copy.headers == response.headers)
    }

    @Test func gzipBodiesAreDecompressed() async throws {
        let compressed = Data(
            base64Encoded:
                "H4sIAAAAAAACA6tWykxRslIw11FQKsksyUkFspWS83MLilKLi1NTFCqGCVDSgXgrJ7UkFeTfkqLS1FoAsXKfEfwAAAA=")!
        let server = try TestServer { request in
            TestResponse(
                headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/json")], body: compressed)
        }
        defer { server.shutdown() }
        struct Item: Decodable, Sendable {
            let id: Int
            let title: String
            let completed: Bool
        }
        let item = try await sharedConnect.request(TestConnector(server, "/gz")).decoded(toType: Item.self).value
        #expect(item.id == 7 && item.title.count == 211 && item.completed)
        let accepted = try #require(server.requests.first?.header("Accept-Encoding"))
        #expect(accepted.contains("gzip") && accepted.contains("br") && accepted.contains("zstd"))
    }

    /// Connect's own `Accept-Encoding` goes out once, and a request that names one sends that
    /// one alone, in any case of its name.
    @Test func aRequestsOwnAcceptEncodingReplacesConnects() async throws {
        let server = try TestServer { _ in TestResponse(body: Data("{}".utf8)) }
        defer { server.shutdown() }
        _ = try await sharedConnect.request(TestConnector(server, "/default")).value
        _ = try await sharedConnect.request(
            TestConnector(server, "/own", headers: [HTTPHeader(name: "accept-encoding", value: "identity")])
        ).value
        let requests = server.requests
        try #require(requests.count == 2)
        let sent = requests.map { request in request.headers.filter { $0.0.lowercased() == "accept-encoding" }.map(\.1)
        }
        #expect(sent[0] == [ContentDecoder.Coding.acceptEncoding])
        #expect(sent[1] == ["identity"])
    }

    /// The same JSON document in each other encoding libcurl decodes. The brotli stream is one
    /// stored (uncompressed) meta-block, written by hand for lack of an encoder here; it still
    /// goes through libcurl's brotli decoder.
    @Test(arguments: [
        ("deflate", "eJyrVspMUbJSMNdRUCrJLMlJBbKVKogECsn5uQVFqcXFqSlKQP0gXk5qSSrIvJKi0tRaAEkgI2c="),
        ("zstd", "KLUv/QRopQEAEoMKEMDrJkuh0Wz5tDqFq0td5gTtCmXP+DxxgfEpHZ1iRJd7PsmRLgg94zALAgAxg1oJ7tTGN6s="),
        (
            "br",
            "sAUQeyJpZCI6IDcsICJ0aXRsZSI6ICJ4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4IGNvbXByZXNzZWQiLCAiY29tcGxldGVkIjogdHJ1ZX0D"
        )
    ])
    func otherContentEncodingsAreDecompressed(encoding: String, base64: String) async throws {
        let compressed = try #require(Data(base64Encoded: base64))
        let server = try TestServer { _ in
            TestResponse(
                headers: [("Content-Encoding", encoding), ("Content-Type", "application/json")], body: compressed)
        }
        defer { server.shutdown() }
        struct Item: Decodable, Sendable {
            let id: Int
            let title: String
            let completed: Bool
        }
        let item = try await sharedConnect.request(TestConnector(server, "/encoded")).decoded(toType: Item.self).value
        #expect(item.id == 7 && item.title == String(repeating: "x", count: 40) + " compressed" && item.completed)
    }

    @Test func decodingFailureNamesThePath() async throws {
        let server = try TestServer { _ in .json(#"{"userId":1,"id":"oops","title":"t","completed":false}"#) }
        defer { server.shutdown() }
        let error = await connectError(
            sharedConnect.request(TestConnector(server, "/todos/1")).decoded(toType: Todo.self))
        guard case .decoding(let failure)? = error else {
            Issue.record("expected ConnectError.decoding, got \(String(describing: error))")
            return
        }
        #expect(failure.codingPath == "id")
        #expect(failure.description.contains(#""id":"oops""#))
    }

    @Test func failedStatusSurfacesTheServersMessage() async throws {
        let server = try TestServer { _ in .json(#"{"msg":"Todo 9 does not exist"}"#, status: 404) }
        defer { server.shutdown() }
        let error = await connectError(sharedConnect.request(TestConnector(server, "/todos/9")))
        guard case .http(let failure)? = error else {
            Issue.record("expected an HTTP failure, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 404)
        #expect(failure.message == "Todo 9 does not exist")
        #expect(failure.description == "HTTP 404 Not Found: Todo 9 does not exist")
    }

    @Test func resultsArriveOnTheCallbackQueue() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "results")
        queue.setSpecific(key: key, value: "results")
        var configuration = ConnectConfiguration()
        configuration.callbackQueue = queue
        let connect = Connect(configuration: configuration)
        let labels = await withCheckedContinuation { continuation in
            connect.request(TestConnector(server, "/")).map { _ in DispatchQueue.getSpecific(key: key) }.observe {
                result in
                continuation.resume(returning: [(try? result.get()) ?? nil, DispatchQueue.getSpecific(key: key)])
            }
        }
        #expect(labels == ["results", "results"])
        let invalid = await withCheckedContinuation { continuation in
            connect.request(TestConnector(server, "/{missing}")).observe { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }
        }
        #expect(invalid == "results")
    }
}
