import ConnectFutures
import Foundation
import Testing

@testable import Connect

/// The HTTP version choice against nginx: HTTP/1.1 only, HTTP/2 by ALPN, and HTTP/2 with prior
/// knowledge on cleartext (h2c), where libcurl 7.88 breaks a reused connection it opened with
/// prior knowledge (curl issue 10634) and loses answers a server sends before reading a POST's
/// body.
@Suite("HTTP versions", .serialized, .timeLimit(.minutes(3)))
struct HTTPVersionTests {
    struct VersionedConnector: Connector {
        var baseURL: URL
        var endpoint = ""
        var method: HTTPMethod = .get
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)?
        var httpVersion: HTTPVersionPolicy?
        var connectTo: [ConnectTo]?
    }

    static func client(_ version: HTTPVersionPolicy = .automatic, timeout: Duration = .seconds(30)) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        configuration.httpVersion = version
        configuration.timeout = timeout
        return Connect(configuration: configuration)
    }

    /// The first site's access log lines containing `path`, and the connections they show.
    static func connections(
        _ server: NginxServer, _ path: String, atLeast count: Int
    ) async -> (lines: [String], connections: Set<Substring>) {
        let lines = await server.accessLog(atLeast: count) { $0.hasPrefix("\(server.ports[0]) ") && $0.contains(path) }
        return (lines, Set(lines.compactMap { $0.split(separator: " ").last }))
    }

    @Test func http1OnlyWhereTheServerOffersHTTP2() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server", http2: true)])
        defer { server.shutdown() }
        let url = server.url(0)
        #expect(try await Self.client().response(VersionedConnector(baseURL: url)).value.httpVersion == "2")
        #expect(try await Self.client(.http1Only).response(VersionedConnector(baseURL: url)).value.httpVersion == "1.1")
        // A connector's choice and a request's override the client's, on the same connections.
        let client = Self.client()
        #expect(
            try await client.response(VersionedConnector(baseURL: url, httpVersion: .http1Only)).value.httpVersion
                == "1.1")
        #expect(try await client.response(VersionedConnector(baseURL: url)).value.httpVersion == "2")
        var request = Request(url: url)
        request.httpVersion = .http1Only
        #expect(try await client.send(request).value.httpVersion == "1.1")
        #expect(
            try await Self.client(.http1Only).response(VersionedConnector(baseURL: url, httpVersion: .automatic)).value
                .httpVersion == "2")
        // Prior knowledge on https is negotiated in the handshake.
        #expect(
            try await client.response(VersionedConnector(baseURL: url, httpVersion: .http2WithPriorKnowledge)).value
                .httpVersion == "2")
    }

    /// Sequential requests share the connection the first opened with prior knowledge: libcurl
    /// 7.88 fails the second with "Error in the HTTP2 framing layer" when it asks for prior
    /// knowledge again.
    @Test func priorKnowledgeReusesItsConnection() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server", http2: true, cleartext: true)])
        defer { server.shutdown() }
        let client = Self.client(.http2WithPriorKnowledge)
        for index in 0..<6 {
            let response = try await client.response(VersionedConnector(baseURL: server.url(0, "/seq/\(index)"))).value
            #expect(response.httpVersion == "2")
            #expect(response.body == Data("ok\n".utf8))
            #expect(response.metrics.reusedConnection == (index > 0))
        }
        let (lines, connections) = await Self.connections(server, "/seq/", atLeast: 6)
        #expect(lines.count == 6 && lines.allSatisfy { $0.contains("HTTP/2.0") })
        #expect(connections.count == 1)
    }

    /// 64 requests started together: the first opens the connection, the others wait to share
    /// it as streams.
    @Test func concurrentH2CRequestsShareOneConnection() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server", http2: true, cleartext: true)])
        defer { server.shutdown() }
        let client = Self.client()
        let bodies = try await Future.whenAll(
            (0..<64).map {
                client.request(
                    VersionedConnector(baseURL: server.url(0, "/c/\($0)"), httpVersion: .http2WithPriorKnowledge))
            }
        ).value
        #expect(bodies.count == 64 && bodies.allSatisfy { $0 == Data("ok\n".utf8) })
        let (lines, connections) = await Self.connections(server, "/c/", atLeast: 64)
        #expect(lines.count == 64 && lines.allSatisfy { $0.contains("HTTP/2.0") })
        #expect(connections.count == 1)
    }

    /// The server closes each connection after 8 requests (a `GOAWAY`): requests asking to share
    /// a connection that is gone open a new one with prior knowledge instead of an `Upgrade`.
    @Test func h2cOutlivesItsConnections() async throws {
        let server = try await NginxServer(sites: [
            .init(certificate: "server", http2: true, cleartext: true, directives: "keepalive_requests 8;")
        ])
        defer { server.shutdown() }
        let client = Self.client(.http2WithPriorKnowledge)
        for batch in 0..<6 {
            let bodies = try await Future.whenAll(
                (0..<12).map { client.request(VersionedConnector(baseURL: server.url(0, "/g/\(batch)/\($0)"))) }
            ).value
            #expect(bodies.allSatisfy { $0 == Data("ok\n".utf8) })
        }
        let (lines, connections) = await Self.connections(server, "/g/", atLeast: 72)
        #expect(lines.count == 72 && lines.allSatisfy { $0.contains(" 200 ") && $0.contains("HTTP/2.0") })
        #expect(connections.count >= 9)
    }

    /// An origin that answered over HTTP/2, then a new connection to it that never opens: the
    /// requests that wait to share the one being opened count the wait toward their connect
    /// timeout, and fail with it when the opening fails, instead of taking turns at opening a
    /// connection of their own, one connect timeout each (12 requests, 12 s). (The connection
    /// goes, by connect-to, to a listener whose backlog is full; libcurl opens a new one for a
    /// connect-to target.)
    @Test func requestsWaitingForAConnectionThatNeverOpensFailByTheirConnectTimeout() async throws {
        let origin = try await NeverOpeningConnections()
        defer { origin.close() }
        let started = ContinuousClock.now
        let futures = (0..<12).map(origin.request)
        var failures: [ConnectError?] = []
        for future in futures { failures.append(await connectError(future)) }
        let elapsed = ContinuousClock.now - started
        for failure in failures {
            guard case .timedOut(let message)? = failure else {
                Issue.record("expected the connect timeout, got \(String(describing: failure))")
                continue
            }
            // Each message accounts for the whole connect timeout: a request released with a few
            // milliseconds left that timed out connecting says how long it waited before.
            #expect(Self.millisecondsReported(in: message) >= 900, "\(message)")
        }
        // Taking turns takes at least 12 s, one connect timeout each; together, about one.
        #expect(elapsed >= .milliseconds(900), "the connect timeout ended the attempt")
        #expect(elapsed < .seconds(10), "\(elapsed): the waiting requests took turns at connecting")
    }

    /// The request opening the connection others wait for is cancelled a moment in: the next
    /// opens one with what its wait left of the connect timeout and times out connecting. Its
    /// message says how long it waited before, so that it accounts for the whole connect timeout
    /// as well ("after 800 ms: Timeout was reached (having waited 200 milliseconds before for the
    /// connection another request was opening …)"); libcurl's own counts only its attempt.
    @Test func aRequestThatWaitedAndTimedOutConnectingSaysHowLongItWaited() async throws {
        let origin = try await NeverOpeningConnections()
        defer { origin.close() }
        let opener = origin.request(0)
        try await Task.sleep(for: .milliseconds(100))
        let waiters = [origin.request(1), origin.request(2)]
        try await Task.sleep(for: .milliseconds(200))
        opener.cancel()
        // A machine that stalled the test a second has the opener time out first.
        let openerEnded = await connectError(opener)
        if case .timedOut? = openerEnded {
        } else {
            #expect(openerEnded == .cancelled)
        }
        for waiter in waiters {
            guard case .timedOut(let message)? = await connectError(waiter) else {
                Issue.record("expected the connect timeout")
                continue
            }
            #expect(Self.millisecondsReported(in: message) >= 900, "\(message)")
        }
    }

    /// An origin (nginx, h2c) that answered over HTTP/2, and a client whose new connections to it
    /// never open: they go, by connect-to, to a listener whose backlog is full (libcurl opens a
    /// new connection for a connect-to target). The connect timeout is 1 s.
    struct NeverOpeningConnections {
        let server: NginxServer
        let blackhole: FullBacklogListener
        let client: Connect
        let route: ConnectTo

        init() async throws {
            blackhole = try FullBacklogListener()
            server = try await NginxServer(sites: [.init(certificate: "server", http2: true, cleartext: true)])
            var configuration = ConnectConfiguration()
            configuration.httpVersion = .http2WithPriorKnowledge
            configuration.connectTimeout = .seconds(1)
            configuration.timeout = .seconds(60)
            client = Connect(configuration: configuration)
            let origin = server.url(0)
            route = ConnectTo(
                host: origin.host, port: origin.port, connectHost: "127.0.0.1", connectPort: blackhole.url.port ?? 0)
            #expect(try await client.response(VersionedConnector(baseURL: origin)).value.httpVersion == "2")
        }

        /// The `index`-th request to the origin over a connection that never opens.
        func request(_ index: Int) -> Future<Data> {
            client.request(VersionedConnector(baseURL: server.url(0), endpoint: "/never/\(index)", connectTo: [route]))
        }

        func close() {
            blackhole.close()
            server.shutdown()
        }
    }

    /// The milliseconds `message` reports, added up: "after 3 ms: Timeout was reached (having
    /// waited 997 milliseconds before …)" reports 1,000.
    static func millisecondsReported(in message: String) -> Int {
        message.matches(of: /(\d+) (milliseconds|ms)\b/).reduce(0) { $0 + (Int($1.output.1) ?? 0) }
    }

    /// A server that ends each HTTP/2 connection after 5 requests (a `GOAWAY`) while 12 are in
    /// flight refuses the streams above the last it accepted. libcurl 7.88 sends those again,
    /// reports some as framing errors instead, and keeps counting the times it sent a request
    /// again on an easy handle that is used again. Every GET and every POST that allows retries
    /// gets its answer; a POST that does not either gets its answer or fails as sent, since
    /// libcurl shows nothing that tells a refused stream from one the server read. No request
    /// reaches the server twice.
    @Test(arguments: [false, true]) func requestsOnConnectionsTheServerEnds(cleartext: Bool) async throws {
        // The bodies that may be sent again go to a proxy, which reads each whole body before
        // it answers.
        let server = try await NginxServer(sites: [
            .init(
                certificate: "server",
                locations:
                    #"location /retry/ { proxy_pass http://127.0.0.1:PORT1; } location / { return 200 "ok\n"; }"#,
                http2: true, cleartext: cleartext, directives: "keepalive_requests 5;"),
            .init(certificate: "server", cleartext: true)
        ])
        defer { server.shutdown() }
        let client = Self.client(cleartext ? .http2WithPriorKnowledge : .automatic)
        let body = Data(repeating: 7, count: 64 << 10)  // sent through the read callback, rewound for each resend
        var answeredPosts = 0
        for batch in 0..<20 {
            let gets = (0..<4).map { client.request(VersionedConnector(baseURL: server.url(0, "/get/\(batch)/\($0)"))) }
            let posts = (0..<4).map {
                client.send(
                    Request(method: .post, url: server.url(0, "/post/\(batch)/\($0)"), body: .data(Data("{}".utf8))))
            }
            let retriedPosts = (0..<4).map { index in
                var request = Request(method: .post, url: server.url(0, "/retry/\(batch)/\(index)"), body: .data(body))
                request.allowsRetry = true
                return client.send(request)
            }
            #expect(try await Future.whenAll(gets).value.allSatisfy { $0 == Data("ok\n".utf8) })
            #expect(try await Future.whenAll(retriedPosts).value.allSatisfy { $0.statusCode == 200 })
            for post in posts {
                do {
                    #expect(try await post.value.body == Data("ok\n".utf8))
                    answeredPosts += 1
                } catch ConnectError.transport(let failure) {
                    #expect(failure.requestSent)
                }
            }
        }
        // nginx logs a request after it sent the answer: wait for the lines of those answered.
        let site = "\(server.ports[0]) "
        let answered = await server.accessLog(atLeast: 160) {
            $0.hasPrefix(site) && ($0.contains(" /get/") || $0.contains(" /retry/"))
        }
        let posted = await server.accessLog(atLeast: answeredPosts) { $0.hasPrefix(site) && $0.contains(" /post/") }
        let paths = (answered + posted).map { $0.split(separator: " ")[2] }
        #expect(answered.count == 160 && posted.count >= answeredPosts)
        #expect(paths.count == Set(paths).count)
    }

    /// POSTs and a PUT with bodies over one h2c connection, to a server that reads each body
    /// before it answers.
    @Test func h2cRequestsWithBodies() async throws {
        let server = try await NginxServer(sites: [
            .init(
                certificate: "server",
                locations:
                    #"location /echo { proxy_pass http://127.0.0.1:PORT1/; } location /upload/ { root .; dav_methods PUT; client_max_body_size 0; }"#,
                http2: true, cleartext: true),
            .init(
                certificate: "server", locations: #"location / { return 200 "$http_content_length"; }"#, cleartext: true
            )
        ])
        defer { server.shutdown() }
        try FileManager.default.createDirectory(
            at: server.directory.appendingPathComponent("upload"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        let client = Self.client(.http2WithPriorKnowledge)
        struct Item: Codable, Sendable {
            var id: Int
            var title: String
        }
        let posts = (0..<32).map { index in
            client.request(
                VersionedConnector(
                    baseURL: server.url(0, "/echo"), method: .post,
                    parameters: Parameter.jsonObject(
                        value: [Item](repeating: Item(id: index, title: "todo"), count: index + 1))))
        }
        let lengths = try await Future.whenAll(posts).value.map { Int(String(decoding: $0, as: UTF8.self)) }
        let expected = try (0..<32).map { index in
            try JSONEncoder().encode([Item](repeating: Item(id: index, title: "todo"), count: index + 1)).count
        }
        #expect(lengths == expected)

        let upload = cyclicBytes(1 << 20)
        let put = try await client.send(
            Request(method: .put, url: server.url(0, "/upload/h2c.bin"), body: .data(upload))
        ).value
        #expect(put.statusCode == 201 && put.httpVersion == "2")
        #expect(try Data(contentsOf: server.directory.appendingPathComponent("upload/h2c.bin")) == upload)
        let (lines, connections) = await Self.connections(server, "/", atLeast: 33)
        #expect(lines.filter { $0.contains("POST /echo") }.count == 32)
        #expect(connections.count == 1)
    }

    /// Over HTTP/2 a server may answer before it has read the whole body and reset the stream;
    /// libcurl 7.88 would keep trying to send the rest until the timeout. The answer ends the
    /// exchange, and the connection stays usable.
    @Test func anAnswerBeforeTheBodyIsSentEndsTheExchange() async throws {
        let locations =
            #"location = /early { return 200 '{"ok":true}'; } location = /denied { return 401; } location = /empty { return 204; }"#
        let server = try await NginxServer(sites: [
            .init(certificate: "server", locations: locations, http2: true, directives: "client_max_body_size 0;")
        ])
        defer { server.shutdown() }
        let client = Self.client(timeout: .seconds(20))
        let body = Data(repeating: 0x61, count: 4 << 20)
        let started = ContinuousClock.now
        let early = try await client.send(Request(method: .post, url: server.url(0, "/early"), body: .data(body))).value
        #expect(early.statusCode == 200 && early.body == Data(#"{"ok":true}"#.utf8) && early.httpVersion == "2")
        do {
            _ = try await client.send(Request(method: .put, url: server.url(0, "/denied"), body: .data(body))).value
            Issue.record("a 401 is not a success")
        } catch let ConnectError.http(failure) {
            #expect(failure.statusCode == 401)
        }
        let empty = try await client.send(Request(method: .post, url: server.url(0, "/empty"), body: .data(body))).value
        #expect(empty.statusCode == 204 && empty.body.isEmpty)
        // A streamed body of unknown length that never ends.
        let endless = AsyncStream<Data> { continuation in
            Task {
                while !Task.isCancelled {
                    continuation.yield(Data(repeating: 0x62, count: 65_536))
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
        }
        let streamed = try await client.send(
            Request(method: .post, url: server.url(0, "/early"), body: .stream(endless))
        ).value
        #expect(streamed.statusCode == 200)
        #expect(ContinuousClock.now - started < .seconds(15))
        // The connection still carries requests.
        let after = try await client.response(VersionedConnector(baseURL: server.url(0, "/early"))).value
        #expect(after.statusCode == 405 || after.statusCode == 200)
        #expect(
            await server.accessLog(atLeast: 4) {
                $0.contains("POST /early") || $0.contains("PUT /denied") || $0.contains("POST /empty")
            }.count == 4)
    }

    /// libcurl 7.88 loses, on h2c, the answer a server sends before reading a POST's body: the
    /// request fails with a typed ``TransportFailure/Kind/streamReset`` that says it reached the
    /// server, and it is never sent again.
    @Test func lostH2CAnswersFailTypedAndAreSentOnce() async throws {
        let server = try await NginxServer(sites: [
            .init(
                certificate: "server", locations: #"location = /early { return 200 '{"ok":true}'; }"#,
                http2: true, cleartext: true)
        ])
        defer { server.shutdown() }
        let client = Self.client(.http2WithPriorKnowledge)
        var answered = 0
        var lost = 0
        for index in 0..<20 {
            let connector = VersionedConnector(
                baseURL: server.url(0, "/early"), method: .post,
                parameters: Parameter.jsonObject(value: ["index": index]))
            do {
                _ = try await client.request(connector).value
                answered += 1
            } catch let ConnectError.transport(failure) {
                #expect(failure.kind == .streamReset && failure.requestSent, "\(failure)")
                lost += 1
            }
        }
        #expect(answered + lost == 20)
        #expect(await server.accessLog(atLeast: 20) { $0.contains("POST /early") }.count == 20)
    }

    /// Prior knowledge against a port that speaks only HTTP/1.1 fails at once, typed.
    @Test func priorKnowledgeAgainstAnHTTP1Server() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server", cleartext: true)])
        defer { server.shutdown() }
        let started = ContinuousClock.now
        await #expect {
            _ = try await Self.client(.http2WithPriorKnowledge).request(VersionedConnector(baseURL: server.url(0)))
                .value
        } throws: { error in
            guard case .transport(let failure) = error as? ConnectError else { return false }
            return failure.kind == .connectionClosed || failure.kind == .streamReset
                || failure.kind == .malformedResponse
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
