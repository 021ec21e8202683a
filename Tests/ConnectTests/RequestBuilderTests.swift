import Foundation
import Testing

@testable import Connect

/// Request building without a socket: what a connector becomes.
@Suite("Request building")
struct RequestBuilderTests {
    static let base = URL(string: "https://api.example.com/v1")!

    static func build(
        _ endpoint: String, method: HTTPMethod = .get, headers: [HTTPHeader] = [],
        _ parameters: (any ParametersRepresentable)? = nil,
        configure: (inout ConnectConfiguration) -> Void = { _ in }
    ) -> Result<Request, ConnectError> {
        var configuration = ConnectConfiguration()
        configure(&configuration)
        let connector = TestConnector(
            url: base, endpoint: endpoint, method: method, headers: headers, parameters: parameters)
        do {
            return .success(try RequestBuilder(configuration: configuration).build(connector))
        } catch {
            return .failure(error)
        }
    }

    /// `path:key=value` or `query:key=value`, as a parameter.
    static func parameters(_ specs: [String]) -> CompositeParameters {
        CompositeParameters(
            specs.map { spec in
                let (kind, rest) = (spec.prefix { $0 != ":" }, spec.drop { $0 != ":" }.dropFirst())
                let key = String(rest.prefix { $0 != "=" }), value = String(rest.drop { $0 != "=" }.dropFirst())
                return kind == "path" ? Parameter.path(key: key, value: value) : .query(key: key, value: value)
            })
    }

    @Test(arguments: [
        ("/todos/{id}", ["path:id=7"], "https://api.example.com/v1/todos/7"),
        ("/todos/{id}", ["path:id=a/b?c#d"], "https://api.example.com/v1/todos/a%2Fb%3Fc%23d"),
        ("/todos/{id}", ["path:id=.."], "https://api.example.com/v1/todos/%2E%2E"),
        ("/search", ["query:q=a b+c"], "https://api.example.com/v1/search?q=a%20b%2Bc"),
        ("/search", ["query:tag=x", "query:tag=y"], "https://api.example.com/v1/search?tag=x&tag=y"),
        (
            "/users/{u}/todos/{t}", ["path:u=1", "path:t=2", "query:action=update"],
            "https://api.example.com/v1/users/1/todos/2?action=update"
        )
    ])
    func urls(endpoint: String, parameters: [String], url: String) throws {
        let request = try Self.build(endpoint, Self.parameters(parameters)).get()
        #expect(request.url.absoluteString == url)
    }

    /// One builder remembers the URL it last made from a base URL and an endpoint alone: in any
    /// order, each connector must get the URL a new builder makes for it, and a connector whose
    /// endpoint cannot be filled must keep failing.
    @Test func oneBuilderMakesEachConnectorsOwnURL() throws {
        let other = URL(string: "http://other.example.com:8080/api/")!
        let sequence: [(URL, String, [String])] = [
            (Self.base, "/todos", []), (Self.base, "/todos", []), (other, "/todos", []), (Self.base, "/todos", []),
            (Self.base, "/todos?done=1", []), (Self.base, "/todos", ["query:page=2"]), (Self.base, "/todos", []),
            (Self.base, "/users/{id}", ["path:id=3"]), (Self.base, "/users/{id}", []), (Self.base, "/users/{id}", []),
            (other, "todos", []), (other, "/todos", [])
        ]
        let builder = RequestBuilder(configuration: ConnectConfiguration())
        for (base, endpoint, specs) in sequence {
            let connector = TestConnector(url: base, endpoint: endpoint, parameters: Self.parameters(specs))
            let fresh = Result { () throws(ConnectError) in
                try RequestBuilder(configuration: ConnectConfiguration()).build(connector)
            }
            let reused = Result { () throws(ConnectError) in try builder.build(connector) }
            switch (fresh, reused) {
            case (.success(let expected), .success(let made)):
                #expect(made.url == expected.url, "\(base) \(endpoint) \(specs)")
            case (.failure(let expected), .failure(let made)):
                #expect(made == expected)
            default:
                Issue.record("\(base) \(endpoint) \(specs): \(fresh) from a new builder, \(reused) from the one")
            }
        }
    }

    @Test(arguments: [
        ("/todos/{id}", [String](), "no path parameter fills {id}"),
        ("/todos", ["path:id=1"], "{id}")
    ])
    func templatesThatDoNotMatchAreRefused(endpoint: String, parameters: [String], mentions: String) {
        guard case .failure(.invalidRequest(let reason)) = Self.build(endpoint, Self.parameters(parameters)) else {
            Issue.record("expected an invalid request for \(endpoint)")
            return
        }
        #expect(reason.contains(mentions))
    }

    @Test(arguments: [
        [HTTPHeader(name: "X-Bad", value: "a\r\nInjected: yes")], [HTTPHeader(name: "X-Bad", value: "nul\u{0}")],
        [HTTPHeader(name: "Bad Name", value: "v")]
    ])
    func unsafeHeadersAreRefused(headers: [HTTPHeader]) {
        guard case .failure(.invalidRequest) = Self.build("/x", headers: headers) else {
            Issue.record("expected \(headers) refused")
            return
        }
    }

    @Test func aJSONBodyAndItsType() throws {
        let request = try Self.build("/todos", method: .post, Parameter.jsonObject(value: ["title": "t"])).get()
        #expect(request.body?.data == Data(#"{"title":"t"}"#.utf8))
        #expect(request.headers.value(for: "Content-Type") == "application/json")
    }

    /// A connector's optional settings, each declared with its `?` as `Connector` says, reach
    /// the request; left out, each is the protocol's `nil`.
    struct EverySetting: Connector {
        var baseURL: URL { RequestBuilderTests.base }
        var endpoint: String { "/settings" }
        var method: HTTPMethod { .post }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)? { nil }
        var timeout: Duration? { .seconds(7) }
        var allowsRetry: Bool? { true }
        var httpVersion: HTTPVersionPolicy? { .http1Only }
        var credentials: Credentials? { Credentials(username: "u", password: "p") }
        var unixSocketPath: String? { "/run/app.sock" }
        var connectTo: [ConnectTo]? {
            [ConnectTo(host: "api.example.com", port: 443, connectHost: "10.0.0.7", connectPort: 8443)]
        }
        var cachePolicy: CachePolicy? { .reloadIgnoringLocalCacheData }
    }

    @Test func everyOptionalSettingOfAConnectorReachesTheRequest() throws {
        let builder = RequestBuilder(configuration: ConnectConfiguration())
        let request = try builder.build(EverySetting())
        #expect(request.timeout == .seconds(7))
        #expect(request.allowsRetry == true)
        #expect(request.httpVersion == .http1Only)
        #expect(request.credentials == Credentials(username: "u", password: "p"))
        #expect(request.unixSocketPath == "/run/app.sock")
        #expect(
            request.connectTo == [
                ConnectTo(host: "api.example.com", port: 443, connectHost: "10.0.0.7", connectPort: 8443)
            ])
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)

        let plain = try builder.build(TestConnector(url: Self.base, endpoint: "/", method: .get))
        #expect(plain.timeout == nil && plain.allowsRetry == nil && plain.httpVersion == nil)
        #expect(
            plain.credentials == nil && plain.unixSocketPath == nil && plain.connectTo.isEmpty
                && plain.cachePolicy == nil)
    }

    @Test func defaultsAndTheConnectorsOwnHeaders() throws {
        let request = try Self.build("/x", headers: [.accept("text/plain")]) { configuration in
            configuration.defaultHeaders = [.accept("application/json"), HTTPHeader(name: "X-App", value: "demo")]
            configuration.defaultQueryItems = [QueryItem(name: "locale", value: "en")]
        }.get()
        #expect(request.headers.value(for: "Accept") == "text/plain")
        #expect(request.headers.value(for: "X-App") == "demo")
        #expect(request.url.query == "locale=en")
    }

    /// The headers a request gets, in order, whether it adds none of its own (then it shares the
    /// client's list, built once) or adds some: the defaults it lacks, then the `User-Agent`.
    @Test(arguments: [
        // (the connector's headers, the configuration's default headers, the headers sent)
        ([HTTPHeader](), [HTTPHeader](), ["User-Agent: Connect"]),
        (
            [], [.accept("application/json"), HTTPHeader(name: "X-App", value: "demo")],
            ["Accept: application/json", "X-App: demo", "User-Agent: Connect"]
        ),
        ([], [.userAgent("Custom/1"), .accept("a"), .accept("b")], ["User-Agent: Custom/1", "Accept: a"]),
        (
            [.accept("text/plain")], [.accept("application/json"), HTTPHeader(name: "X-App", value: "demo")],
            ["Accept: text/plain", "X-App: demo", "User-Agent: Connect"]
        ),
        ([.userAgent("Mine/2")], [.userAgent("Custom/1")], ["User-Agent: Mine/2"])
    ])
    func theHeadersARequestGets(own: [HTTPHeader], defaults: [HTTPHeader], sent: [String]) throws {
        let request = try Self.build("/x", headers: own) {
            $0.defaultHeaders = defaults
            $0.userAgent = "Connect"
        }.get()
        #expect(request.headers.map { "\($0.name): \($0.value)" } == sent)
    }

    @Test func anUnsafeDefaultHeaderFailsEveryRequest() {
        let bad = HTTPHeader(name: "X-Bad", value: "a\r\nInjected: yes")
        for own in [[], [HTTPHeader.accept("text/plain")]] {
            guard
                case .failure(.invalidRequest(let reason)) = Self.build(
                    "/x", headers: own, configure: { $0.defaultHeaders = [bad] })
            else {
                Issue.record("expected the default header refused with \(own)")
                continue
            }
            #expect(reason.contains("X-Bad"))
        }
    }

    @Test func theEnvironmentReplacesTheBaseURL() throws {
        let request = try Self.build("/x") { $0.environment = .development(URL(string: "http://localhost:8080")!) }
            .get()
        #expect(request.url.absoluteString == "http://localhost:8080/x")  // the environment stands for the whole base URL
    }
}
