import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// Which proxy variable a request goes through, by curl's rules, and which values are refused:
/// plain values, without a socket.
@Suite("Environment proxy decisions")
struct EnvironmentProxyDecisionTests {
    struct Choice: Sendable, CustomStringConvertible {
        var environment: [String: String]
        var http: String?
        var https: String?
        var noProxy = ""
        var description: String { "\(environment.sorted { $0.key < $1.key })" }
    }

    @Test(arguments: [
        Choice(environment: [:], http: nil, https: nil),
        Choice(environment: ["http_proxy": "a:1"], http: "http_proxy", https: nil),
        // HTTP_PROXY is what a CGI program's environment holds for a request's Proxy header.
        Choice(environment: ["HTTP_PROXY": "a:1"], http: nil, https: nil),
        Choice(environment: ["HTTP_PROXY": "a:1", "ALL_PROXY": "b:2"], http: "ALL_PROXY", https: "ALL_PROXY"),
        Choice(environment: ["https_proxy": "a:1", "HTTPS_PROXY": "b:2"], http: nil, https: "https_proxy"),
        Choice(environment: ["HTTPS_PROXY": "b:2"], http: nil, https: "HTTPS_PROXY"),
        Choice(environment: ["all_proxy": "c:3", "ALL_PROXY": "d:4"], http: "all_proxy", https: "all_proxy"),
        Choice(environment: ["http_proxy": "a:1", "all_proxy": "c:3"], http: "http_proxy", https: "all_proxy"),
        // Set to nothing counts as unset.
        Choice(
            environment: ["http_proxy": "", "https_proxy": "", "all_proxy": "c:3"], http: "all_proxy",
            https: "all_proxy"),
        Choice(environment: ["no_proxy": "x", "NO_PROXY": "y"], http: nil, https: nil, noProxy: "x"),
        Choice(environment: ["NO_PROXY": "y"], http: nil, https: nil, noProxy: "y"),
        Choice(environment: ["no_proxy": "", "NO_PROXY": "y"], http: nil, https: nil, noProxy: "y")
    ])
    func variableChosen(_ row: Choice) {
        let proxies = EnvironmentProxies(row.environment)
        #expect(proxies.variable(forHTTPS: false)?.name == row.http)
        #expect(proxies.variable(forHTTPS: true)?.name == row.https)
        #expect(proxies.httpProxy == row.http.flatMap { row.environment[$0] })
        #expect(proxies.httpsProxy == row.https.flatMap { row.environment[$0] })
        #expect(proxies.noProxy == row.noProxy)
    }

    @Test(arguments: [
        "127.0.0.1:3128", "proxy.corp", "http://proxy.corp:3128/", "HTTPS://proxy.corp:443", "socks5h://u:p@h:1080",
        "socks4a://h", "http://[::1]:3128", "[::1]", "user:pa:ss@host:1", "http://u%40x:p@h:8080/ignored"
    ])
    func usable(value: String) {
        #expect(EnvironmentProxies.problem(with: value) == nil)
    }

    @Test(arguments: [
        ("ftp://p:21", "scheme"), ("http://:3128", "no host"), ("", "no host"), ("p:0", "port"), ("p:65536", "port"),
        ("p:abc", "port"), ("p:+80", "port"), ("p:", "port"), ("http://[::1:3128", "IPv6"), ("http://[::1]x", "IPv6"),
        ("p q:1", "space"), ("p:1\n", "control")
    ])
    func refused(value: String, mentions: String) throws {
        let problem = try #require(EnvironmentProxies.problem(with: value))
        #expect(problem.contains(mentions), "\(problem)")
    }

    /// The error names the variable, never its credentials.
    @Test func aRefusedVariableIsNamedWithoutItsValue() throws {
        let proxies = EnvironmentProxies(["https_proxy": "ftp://me:secret@p:21", "http_proxy": "p:3128"])
        let problem = try #require(proxies.problem(forHTTPS: true))
        #expect(problem.hasPrefix("configuration.proxiesFromEnvironment: the environment variable https_proxy "))
        #expect(!problem.contains("secret"))
        #expect(proxies.problem(forHTTPS: false) == nil)
    }
}

/// The environment's proxies and a netrc file, against servers on 127.0.0.1.
@Suite("Proxies from the environment and netrc")
struct EnvironmentProxyTests {
    static func client(_ environment: [String: String], explicit: ProxyConfiguration? = nil) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.proxy = explicit
        configuration.proxiesFromEnvironment = EnvironmentProxies(environment)
        return Connect(configuration: configuration)
    }

    static var remote: TestConnector {
        TestConnector(url: URL(string: "http://api.example.invalid")!, endpoint: "/todos/1")
    }

    @Test func anHTTPRequestGoesThroughHTTPProxyWithItsCredentials() async throws {
        let proxy = try TestServer { request in .text("proxied \(request.uri)") }
        defer { proxy.shutdown() }
        let connect = Self.client(["http_proxy": "me:secret@127.0.0.1:\(proxy.port)"])
        let body = try await connect.request(Self.remote).value
        #expect(String(decoding: body, as: UTF8.self) == "proxied http://api.example.invalid/todos/1")
        #expect(proxy.requests.first?.header("Proxy-Authorization") == "Basic bWU6c2VjcmV0")
    }

    @Test func anHTTPSRequestTunnelsThroughHTTPSProxy() async throws {
        let proxy = try TestServer { _ in TestResponse(status: 403) }
        defer { proxy.shutdown() }
        let unused = try TestServer { _ in .text("wrong proxy") }
        defer { unused.shutdown() }
        let connect = Self.client([
            "http_proxy": "http://127.0.0.1:\(unused.port)", "HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"
        ])
        let error = await connectError(
            connect.request(TestConnector(url: URL(string: "https://api.example.invalid")!)))
        #expect(error != nil)
        #expect(proxy.requests.map(\.method) == ["CONNECT"])
        #expect(proxy.requests.first?.uri == "api.example.invalid:443")
        #expect(unused.requests.isEmpty)
    }

    @Test func allProxyServesWhatHasNoProxyOfItsOwn() async throws {
        let proxy = try TestServer { request in .text("proxied \(request.uri)") }
        defer { proxy.shutdown() }
        let connect = Self.client(["HTTPS_PROXY": "http://127.0.0.1:1", "ALL_PROXY": "127.0.0.1:\(proxy.port)"])
        let body = try await connect.request(Self.remote).value
        #expect(String(decoding: body, as: UTF8.self) == "proxied http://api.example.invalid/todos/1")
    }

    /// A proxy on port 1 refuses connections: a request that went there would fail.
    @Test(arguments: [
        ["http_proxy": "http://127.0.0.1:1", "no_proxy": "localhost,127.0.0.1"],
        ["http_proxy": "http://127.0.0.1:1", "NO_PROXY": "*"],
        ["http_proxy": "http://127.0.0.1:1", "no_proxy": "127.0.0.0/8"],
        ["HTTP_PROXY": "http://127.0.0.1:1"],
        ["https_proxy": "http://127.0.0.1:1"]
    ])
    func requestsThatGoDirectly(environment: [String: String]) async throws {
        let server = try TestServer { _ in .text("direct") }
        defer { server.shutdown() }
        let body = try await Self.client(environment).request(TestConnector(server, "/")).value
        #expect(String(decoding: body, as: UTF8.self) == "direct")
    }

    @Test func theConfiguredProxyWinsOverTheEnvironment() async throws {
        let proxy = try TestServer { request in .text("configured \(request.uri)") }
        defer { proxy.shutdown() }
        let connect = Self.client(
            ["http_proxy": "http://127.0.0.1:1"], explicit: .http(host: "127.0.0.1", port: proxy.port))
        let body = try await connect.request(Self.remote).value
        #expect(String(decoding: body, as: UTF8.self) == "configured http://api.example.invalid/todos/1")
    }

    @Test func anUnusableVariableFailsItsRequestsBeforeAnythingIsSent() async throws {
        let proxy = try TestServer { _ in .text("proxied") }
        defer { proxy.shutdown() }
        let server = try TestServer { _ in .text("direct") }
        defer { server.shutdown() }
        let connect = Self.client(["http_proxy": "ftp://127.0.0.1:\(proxy.port)"])
        guard case .invalidRequest(let problem)? = await connectError(connect.request(TestConnector(server, "/")))
        else {
            Issue.record("expected invalidRequest")
            return
        }
        #expect(problem.contains("http_proxy") && problem.contains("ftp"))
        #expect(proxy.requests.isEmpty && server.requests.isEmpty)
    }

    // MARK: netrc

    static func netrc(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("connect-netrc-\(UUID().uuidString)")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func client(netrc: URL) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.netrc = NetrcFile(path: netrc.path)
        return Connect(configuration: configuration)
    }

    @Test func netrcCredentialsGoToTheirHostOnly() async throws {
        let other = try TestServer { request in .text("other \(request.header("Authorization") ?? "none")") }
        defer { other.shutdown() }
        let server = try TestServer { request in
            request.path == "/away"
                ? .redirect(to: "http://localhost:\(other.port)/there")
                : .text("auth \(request.header("Authorization") ?? "none")")
        }
        defer { server.shutdown() }
        let file = try Self.netrc("machine 127.0.0.1\nlogin me\npassword secret\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let connect = Self.client(netrc: file)
        let body = try await connect.request(TestConnector(server, "/")).value
        #expect(String(decoding: body, as: UTF8.self) == "auth Basic bWU6c2VjcmV0")
        // A redirect to another host: that host's entry, of which there is none.
        let redirected = try await connect.request(TestConnector(server, "/away")).value
        #expect(String(decoding: redirected, as: UTF8.self) == "other none")
        #expect(other.requests.first?.header("Authorization") == nil)
    }

    @Test func aRequestsOwnAuthorizationWinsOverNetrc() async throws {
        let server = try TestServer { request in .text(request.header("Authorization") ?? "none") }
        defer { server.shutdown() }
        let file = try Self.netrc("machine 127.0.0.1 login me password secret\n")
        defer { try? FileManager.default.removeItem(at: file) }
        var connector = TestConnector(server, "/")
        connector.headers = [HTTPHeader(name: "Authorization", value: "Bearer token")]
        let body = try await Self.client(netrc: file).request(connector).value
        #expect(String(decoding: body, as: UTF8.self) == "Bearer token")
        #expect(server.requests.count == 1)
    }

    @Test func aNamedNetrcFileThatIsMissingFailsBeforeAnythingIsSent() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("connect-netrc-missing")
        guard
            case .invalidRequest(let problem)? = await connectError(
                Self.client(netrc: missing).request(TestConnector(server, "/")))
        else {
            Issue.record("expected invalidRequest")
            return
        }
        #expect(problem == "configuration.netrc \(missing.path): no file there")
        #expect(server.requests.isEmpty)
    }
}
