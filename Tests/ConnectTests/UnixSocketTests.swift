import ConnectOpenAPI
import ConnectTestServer
import Foundation
import Testing
import TodoAPIClient

@testable import Connect

/// Connections through a Unix domain socket, as the Docker and Podman APIs listen: the client's
/// (`configuration.connections.unixSocketPath`), a connector's own (`Connector.unixSocketPath`)
/// and the URL's (`http+unix://`, `https+unix://`). Against nginx on a socket, over HTTP/1.1,
/// TLS and h2c, one request after another on one connection and many at once, sockets and TCP
/// mixed in one client. The fault suite runs over a socket too
/// (`FaultSuiteTests.scenarioOverAUnixSocket`), stray responses included.
@Suite("Unix domain sockets", .timeLimit(.minutes(3)))
struct UnixSocketTests {
    /// A socket path short enough for `sockaddr_un`, removed by the caller.
    static func socketPath() -> String {
        "/tmp/connect-\(UUID().uuidString.prefix(8)).sock"
    }

    static func connect(through socketPath: String?, trustingTestCA: Bool = false) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.connections.unixSocketPath = socketPath
        if trustingTestCA { configuration.tls.trustedCertificates = NginxServer.file("ca.pem") }
        return Connect(configuration: configuration)
    }

    /// Where a request learns its socket.
    enum Naming: CaseIterable {
        case configuration, url, connector
    }

    @Test(arguments: Naming.allCases)
    func requestsOneAfterAnotherShareOneConnection(socketNamedBy naming: Naming) async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try await Self.nginx(named: "a", socketPath: socketPath)
        defer { nginx.shutdown() }
        let connect = naming == .configuration ? Self.connect(through: socketPath) : Connect()
        for index in 0..<5 {
            let path = "/n/\(index)"
            let connector: any Connector =
                switch naming {
                case .configuration: TestConnector(url: URL(string: "http://localhost\(path)")!)
                case .url: TestConnector(url: Self.url(socketPath, path))
                case .connector: SocketConnector(endpoint: path, unixSocketPath: socketPath)
                }
            let body = try await connect.request(connector).value
            #expect(String(decoding: body, as: UTF8.self) == "a \(path) localhost")
        }
        let lines = await nginx.accessLog(atLeast: 5) { $0.contains(" /n/") }
        #expect(lines.count == 5)
        #expect(Set(lines.compactMap { $0.split(separator: " ").last }).count == 1, "\(lines)")
    }

    @Test func manyRequestsAtOnceEachGetTheirOwnAnswer() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "server", locations: #"location / { return 200 "$uri"; }"#, cleartext: true,
                unixSocket: socketPath)
        ])
        defer { nginx.shutdown() }
        let connect = Self.connect(through: socketPath)
        for round in 0..<3 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let path = "/\(round)/\(index)"
                        let body = try await connect.request(
                            TestConnector(url: URL(string: "http://localhost\(path)")!)
                        )
                        .value
                        #expect(String(decoding: body, as: UTF8.self) == path)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// `https` through the client's socket, and an `https+unix` URL: TLS over the socket.
    @Test(arguments: [true, false])
    func httpsGoesOverTheSocketWithTheURLsHost(socketInTheURL: Bool) async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "server", locations: #"location /ok { return 200 "tls $host\n"; }"#, unixSocket: socketPath
            )
        ])
        defer { nginx.shutdown() }
        let connect = Self.connect(through: socketInTheURL ? nil : socketPath, trustingTestCA: true)
        let url =
            socketInTheURL ? Self.url(socketPath, "/ok", scheme: "https+unix") : URL(string: "https://localhost/ok")!
        let body = try await connect.request(TestConnector(url: url)).value
        #expect(String(decoding: body, as: UTF8.self) == "tls localhost\n")
    }

    @Test func aPathWithoutASocketFailsBeforeAnythingIsSent() async throws {
        let connect = Self.connect(through: "/tmp/connect-no-such.sock")
        let error = await connectError(connect.request(TestConnector(url: URL(string: "http://localhost/ok")!)))
        #expect(
            error
                == .invalidRequest(
                    "configuration.connections.unixSocketPath /tmp/connect-no-such.sock: no socket there"))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("connect-not-a-socket-\(UUID())")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let plainFile = await connectError(
            Self.connect(through: file.path).request(TestConnector(url: URL(string: "http://localhost/ok")!)))
        #expect(plainFile == .invalidRequest("configuration.connections.unixSocketPath \(file.path): no socket there"))
    }

    @Test(arguments: [
        ("", "configuration.connections.unixSocketPath \"\" is not a path"),
        (
            "/tmp/" + String(repeating: "s", count: 103),
            "configuration.connections.unixSocketPath is 108 bytes long; a socket's path holds at most 107"
        )
    ])
    func aPathThatCannotBeASocketsIsRefused(path: String, problem: String) {
        var settings = ConnectionSettings()
        settings.unixSocketPath = path
        #expect(settings.problem == problem)
    }

    // MARK: A connector's own socket, and the URL's

    /// A connector of the Docker API's shape: a socket of its own, the URL naming the host.
    struct SocketConnector: Connector {
        var baseURL = URL(string: "http://localhost")!
        var endpoint: String
        var method: HTTPMethod { .get }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)? { nil }
        var unixSocketPath: String?
    }

    /// `http+unix://` (or `scheme`) with `socketPath` percent-encoded as the host, then `path`.
    static func url(_ socketPath: String, _ path: String, scheme: String = "http+unix") -> URL {
        URL(string: "\(scheme)://\(socketPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)\(path)")!
    }

    /// nginx on a socket (and on a port), answering with its name, the path and the host.
    static func nginx(named name: String, socketPath: String, http2: Bool = false) async throws -> NginxServer {
        try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "server",
                locations: #"""
                    location / { return 200 "\#(name) $uri $host"; }
                    location /hop { absolute_redirect off; return 302 /after-hop; }
                    """#,
                http2: http2, cleartext: true, unixSocket: socketPath)
        ])
    }

    @Test(arguments: [
        (
            "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info?all=1",
            UnixSocketURL(
                socketPath: "/var/run/docker.sock", isHTTPS: false,
                transferURL: "http://localhost/v1.43/info?all=1")
        ),
        (
            "HTTPS+UNIX://%2ftmp%2fa%20b.sock",
            UnixSocketURL(socketPath: "/tmp/a b.sock", isHTTPS: true, transferURL: "https://localhost/")
        ),
        (
            "http+unix://relative.sock?x=%2F#fragment",
            UnixSocketURL(socketPath: "relative.sock", isHTTPS: false, transferURL: "http://localhost/?x=%2F")
        )
    ])
    func urlsThatNameASocket(url: String, expected: UnixSocketURL) {
        #expect(UnixSocketURL.hasUnixScheme(url))
        #expect(UnixSocketURL(url) == expected)
        #expect(UnixSocketURL.problem(with: url) == nil)
    }

    @Test(arguments: [
        ("http+unix:///path", "names no socket"),
        ("http+unix://%2Ftmp%2Fa%2.sock/", "names no socket"),
        ("http+unix://%2Ftmp%00.sock/", "names no socket"),
        ("http+unix://user@%2Ftmp%2Fa.sock/", "has user information"),
        ("http+unix://%2F" + String(repeating: "s", count: 107) + "/", "a socket's path holds at most 107"),
        ("http://localhost/", "is not http+unix or https+unix")
    ])
    func urlsThatAreRefused(url: String, mentions: String) throws {
        #expect(UnixSocketURL(url) == nil)
        let problem = try #require(UnixSocketURL.problem(with: url))
        #expect(problem.contains(mentions), "\(problem)")
    }

    @Test(arguments: ["http://a", "https://a", "https", "ftp://x", "", "http:", "htt"])
    func urlsOfOtherSchemesAreNotReadAsSockets(url: String) {
        #expect(!UnixSocketURL.hasUnixScheme(url))
    }

    @Test func aConnectorsOwnSocketKeepsItsURLsHost() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try await Self.nginx(named: "a", socketPath: socketPath)
        defer { nginx.shutdown() }
        let connector = SocketConnector(
            baseURL: URL(string: "http://docker.internal")!, endpoint: "/v1/info", unixSocketPath: socketPath)
        let body = try await Connect().request(connector).value
        #expect(String(decoding: body, as: UTF8.self) == "a /v1/info docker.internal")
    }

    /// Two sockets and TCP in one client, all at once: every answer comes from the server asked,
    /// and the connections of each stay its own (nginx names each connection by a serial of its
    /// own: the serials of one server's log are its connections).
    @Test func socketsAndTCPInOneClientAreToldApart() async throws {
        let (pathA, pathB) = (Self.socketPath(), Self.socketPath())
        defer {
            unlink(pathA)
            unlink(pathB)
        }
        let nginxA = try await Self.nginx(named: "a", socketPath: pathA)
        defer { nginxA.shutdown() }
        let nginxB = try await Self.nginx(named: "b", socketPath: pathB)
        defer { nginxB.shutdown() }
        let connect = Connect()
        let requests: [(any Connector, String)] = (0..<8).flatMap { index -> [(any Connector, String)] in
            [
                (TestConnector(url: Self.url(pathA, "/url/\(index)")), "a /url/\(index) localhost"),
                (SocketConnector(endpoint: "/own/\(index)", unixSocketPath: pathB), "b /own/\(index) localhost"),
                (TestConnector(url: nginxA.url(0, "/tcp/\(index)")), "a /tcp/\(index) 127.0.0.1")
            ]
        }
        for _ in 0..<3 {
            try await withThrowingTaskGroup(of: (String, String).self) { group in
                for (connector, expected) in requests {
                    let future = connect.request(connector)
                    group.addTask { (String(decoding: try await future.value, as: UTF8.self), expected) }
                }
                for try await (body, expected) in group { #expect(body == expected) }
            }
        }
        let linesA = await nginxA.accessLog(atLeast: 48)
        let linesB = await nginxB.accessLog(atLeast: 24)
        #expect(linesA.count == 48)
        #expect(linesB.count == 24)
        #expect(linesB.allSatisfy { $0.contains(" /own/") }, "\(linesB)")
    }

    @Test func h2cGoesOverTheSocketOnOneConnection() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try await Self.nginx(named: "h2c", socketPath: socketPath, http2: true)
        defer { nginx.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.httpVersion = .http2WithPriorKnowledge
        let connect = Connect(configuration: configuration)
        let responses = try await withThrowingTaskGroup(of: Response.self) { group in
            for index in 0..<16 {
                let future = connect.response(TestConnector(url: Self.url(socketPath, "/s/\(index)")))
                group.addTask { try await future.value }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.httpVersion == "2" })
        #expect(
            Set(responses.map { String(decoding: $0.body, as: UTF8.self) })
                == Set((0..<16).map { "h2c /s/\($0) localhost" }))
        let lines = await nginx.accessLog(atLeast: 16) { $0.contains(" /s/") }
        #expect(lines.allSatisfy { $0.contains("HTTP/2.0") }, "\(lines)")
        #expect(Set(lines.compactMap { $0.split(separator: " ").last }).count == 1, "\(lines)")
    }

    /// A relative Location stays on the socket; the hop is a request like the first.
    @Test func aRedirectOnTheSameSocketStaysOnIt() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try await Self.nginx(named: "a", socketPath: socketPath)
        defer { nginx.shutdown() }
        let response = try await Connect().response(TestConnector(url: Self.url(socketPath, "/hop"))).value
        #expect(String(decoding: response.body, as: UTF8.self) == "a /after-hop localhost")
        #expect(response.url == Self.url(socketPath, "/after-hop"))

        let own = try await Connect().response(SocketConnector(endpoint: "/hop", unixSocketPath: socketPath)).value
        #expect(String(decoding: own.body, as: UTF8.self) == "a /after-hop localhost")
    }

    @Test func aSocketOfTheRequestsThatIsMissingFailsBeforeAnythingIsSent() async throws {
        let missing = "/tmp/connect-no-such-\(UUID().uuidString.prefix(8)).sock"
        let own = await connectError(Connect().request(SocketConnector(endpoint: "/", unixSocketPath: missing)))
        #expect(own == .invalidRequest("the request's unixSocketPath \(missing): no socket there"))

        let url = Self.url(missing, "/")
        let named = await connectError(Connect().request(TestConnector(url: url)))
        #expect(
            named
                == .invalidRequest(
                    "the URL \(url.absoluteString.debugDescription) names the socket \(missing): no socket there"))

        let unnamed = await connectError(Connect().request(TestConnector(url: URL(string: "http+unix:///v1/info")!)))
        guard case .invalidRequest(let problem)? = unnamed else {
            Issue.record("expected an invalid request, got \(String(describing: unnamed))")
            return
        }
        #expect(problem.contains("names no socket"), "\(problem)")
    }

    /// The generated client's server URL names the socket; the to-do service listens on it.
    @Test func theOpenAPIClientReachesAServiceOnASocket() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let service = try TodoService(unixSocketPath: socketPath)
        defer { service.shutdown() }
        let client = Client(serverURL: Self.url(socketPath, ""), transport: ConnectTransport(sharedConnect))
        let todo = try await client.getTodo(path: .init(id: 2)).ok.body.json
        #expect(todo.title == "Chain futures top-down")
        #expect(service.requests.last?.path == "/todos/2")
    }

    /// Which connection a transfer through a socket was given, told without ports (real socket
    /// pairs stand for the connections; the far end of one shut down reads its end).
    @Test func aReusedConnectionIsToldByItsSocketPathAndState() throws {
        func pair() -> (near: Int32, far: Int32) {
            var ends: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            return (ends[0], ends[1])
        }
        func wasShutDown(_ far: Int32) -> Bool {
            var byte: UInt8 = 0
            return recv(far, &byte, 1, Int32(MSG_DONTWAIT)) == 0
        }
        let tracker = ConnectionTracker()
        let (a, b, c, d) = (pair(), pair(), pair(), pair())
        defer { for end in [a, b, c, d].flatMap({ [$0.near, $0.far] }) { close(end) } }
        for (connection, path) in [(a, "/p1"), (b, "/p2"), (c, "/p1"), (d, "/p3")] {
            tracker.opened(connection.near, unixSocketPath: path)
        }
        let serialA = try #require(tracker.exchangeStarted(on: a.near))
        tracker.exchangeLeft(a.near, serial: serialA)
        let serialB = try #require(tracker.exchangeStarted(on: b.near))
        tracker.exchangeLeft(b.near, serial: serialB)
        let serialC = try #require(tracker.exchangeStarted(on: c.near))

        // The transfer that opened a connection is on it; otherwise the one idle through its path.
        let openedD = try #require(tracker.opened(d.near, unixSocketPath: "/p3"))
        #expect(tracker.unixConnection(through: "/p3", opened: (d.near, openedD)) == .known(d.near))
        #expect(tracker.unixConnection(through: "/p1", opened: nil) == .known(a.near))
        #expect(tracker.unixConnection(through: "/p2", opened: nil) == .known(b.near))

        // Two idle through one path: neither can be told; the choice shuts both down.
        tracker.exchangeLeft(c.near, serial: serialC)
        let ambiguous = tracker.unixConnection(through: "/p1", opened: nil)
        // Listed in descriptor order, which need not be the order they were opened in.
        #expect(ambiguous == .ambiguous(idle: [a.near, c.near].sorted()))
        #expect(!wasShutDown(a.far) && !wasShutDown(c.far), "the tracker answers; it shuts nothing down itself")
        let facts = ConnectionTracker.ChosenConnection(
            connections: tracker, ports: 0, unixSocketPath: "/p1", opened: nil)
        guard
            case .restartOnNewConnection(let shutDown) = ConnectionChoice.chosen(
                h2cAsk: nil, libcurlReusesUnreadConnections: true, facts)
        else {
            Issue.record("an ambiguous connection must start over")
            return
        }
        for socket in shutDown { tracker.shutDown(socket) }
        #expect(wasShutDown(a.far) && wasShutDown(c.far))
        #expect(!wasShutDown(b.far))

        // A multiplexing connection busy with other streams can be the one shared.
        _ = tracker.exchangeStarted(on: d.near)
        tracker.openedH2C(d.near, to: "unix:/p3 localhost:80")
        #expect(tracker.unixConnection(through: "/p3", opened: nil) == .known(d.near))
        #expect(!wasShutDown(d.far))
    }

    /// The debug log's curl command goes where the request goes: the socket, the URL libcurl is
    /// given, and the connect-to entries.
    @Test func theDebugLogsCommandNamesTheSocketAndTheEntries() {
        let command = DebugLog.curlCommand(
            for: Request(url: Self.url("/var/run/docker.sock", "/v1.43/info")), redacting: .default)
        #expect(command.contains("--unix-socket '/var/run/docker.sock'"), "\(command)")
        #expect(command.hasSuffix("'http://localhost/v1.43/info'"), "\(command)")

        var request = Request(url: URL(string: "https://api.example.com/health")!)
        request.unixSocketPath = "/run/api.sock"
        request.connectTo = [ConnectTo(host: "api.example.com", port: 443, connectHost: "10.0.0.7", connectPort: 8443)]
        let routed = DebugLog.curlCommand(for: request, redacting: .default)
        #expect(routed.contains("--unix-socket '/run/api.sock'"), "\(routed)")
        #expect(routed.contains("--connect-to 'api.example.com:443:10.0.0.7:8443'"), "\(routed)")
        #expect(routed.hasSuffix("'https://api.example.com/health'"), "\(routed)")
    }
}
