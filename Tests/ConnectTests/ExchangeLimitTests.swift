import ConnectFutures
import ConnectTestServer
import Foundation
import Logging
import Testing

@testable import Connect

/// The exchange's limits: one timeout for every hop and for the wait before an attempt, a
/// token refresh that may use its own client, and secrets that stay with their origin.
@Suite("Exchange limits", .timeLimit(.minutes(3)))
struct ExchangeLimitTests {
    /// A server whose `/hop/n` redirects to `/hop/n+1` after `delay`, up to `/hop/<last>`, which answers "done".
    static func redirectChain(last: Int, delay: Duration) throws -> TestServer {
        try TestServer { request in
            let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
            guard number < last else { return TestResponse(body: Data("done".utf8), behavior: .delay(delay)) }
            var response = TestResponse.redirect(to: "/hop/\(number + 1)")
            response.behavior = .delay(delay)
            return response
        }
    }

    @Test func theTimeoutBoundsEveryRedirectHopTogether() async throws {
        // Six answers of 0.6 s: 3.6 s in all, each hop alone well within the second.
        let server = try Self.redirectChain(last: 5, delay: .milliseconds(600))
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.timeout = .seconds(1)
        for middleware in [ConnectMiddleware(), ConnectMiddleware(retrier: RetryPolicy(maximumAttempts: 1))] {
            let before = server.requests.count
            let error = await connectError(
                Connect(middleware: middleware, configuration: configuration).request(TestConnector(server, "/hop/0")))
            // Each hop alone is within the timeout, so a timeout per hop would have succeeded.
            guard case .timedOut? = error else {
                Issue.record("expected a timeout, got \(String(describing: error))")
                continue
            }
            // Cut during the second hop or so, not after the sixth. Counted, not timed: a
            // sanitizer or a loaded machine can stall a test's tasks for seconds.
            #expect(server.requests.count - before < 6)
        }
    }

    @Test func hopsWithinTheTimeoutTogetherSucceed() async throws {
        let server = try Self.redirectChain(last: 3, delay: .milliseconds(50))
        defer { server.shutdown() }
        let response = try await Connect().response(TestConnector(server, "/hop/0")).value
        #expect(response.body == Data("done".utf8) && response.metrics.redirectCount == 3)
    }

    /// Sleeps before handing the request on, like an adapter that signs with a slow key store.
    struct SlowAdapter: RequestAdapter {
        let delay: Duration
        func adapt(_ request: Request) async throws -> Request {
            try await Task.sleep(for: delay)
            return request
        }
    }

    @Test func timeSpentAdaptingCountsAgainstTheTimeout() async throws {
        let server = try Self.redirectChain(last: 2, delay: .milliseconds(300))
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.timeout = .seconds(1)
        // 0.6 s adapting, then three answers of 0.3 s: 1.5 s in all.
        let connect = Connect(
            middleware: ConnectMiddleware(adapters: [SlowAdapter(delay: .milliseconds(600))]),
            configuration: configuration)
        let error = await connectError(connect.request(TestConnector(server, "/hop/0")))
        guard case .timedOut? = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
    }

    @Test func anAdapterThatNeverReturnsTimesOut() async throws {
        let server = try TestServer { _ in .text("never reached") }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.timeout = .milliseconds(500)
        let connect = Connect(
            middleware: ConnectMiddleware(adapters: [SlowAdapter(delay: .seconds(3600))]), configuration: configuration)
        // The adapter sleeps for an hour: ending at all (within the suite's time limit) is the
        // timeout's doing.
        let error = await connectError(connect.request(TestConnector(server, "/")))
        guard case .timedOut? = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(server.requests.isEmpty)
    }

    @Test func eachRetryHasTheWholeTimeoutAgain() async throws {
        // The transport sees each attempt's time left: the second attempt starts with the whole
        // timeout again, not what the first (1.8 s of 3) left.
        let mock = MockTransport()
        var first = MockResponse.status(503)
        first.delay = .milliseconds(1800)
        mock.register(first, .json(#"{"ok":true}"#), when: { _ in true })
        var configuration = ConnectConfiguration()
        configuration.timeout = .seconds(3)
        let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10), jitter: 0)
        _ = try await Connect(
            middleware: ConnectMiddleware(retrier: policy), configuration: configuration, transport: mock
        )
        .request(TestConnector(url: URL(string: "https://api.example.com")!, endpoint: "/x")).value
        let timeouts = mock.requests.map { $0.timeout ?? .zero }
        #expect(timeouts.count == 2)
        #expect(timeouts.allSatisfy { $0 > .seconds(2) && $0 <= .seconds(3) }, "\(timeouts)")
    }

    /// Holds the client a refresh closure calls, which is made after the authenticator.
    final class ClientBox: Sendable {
        private let client = Locked<Connect?>(nil)
        var connect: Connect { client.withLock { $0! } }
        func set(_ connect: Connect) { client.withLock { $0 = connect } }
    }

    /// `/me` needs "Bearer fresh"; `/token` hands out "fresh" to anyone.
    static func tokenServer() throws -> TestServer {
        try TestServer { request in
            if request.path == "/token" { return .json(#"{"token":"fresh"}"#) }
            return request.header("Authorization") == "Bearer fresh"
                ? .text("me") : .json(#"{"message":"expired"}"#, status: 401)
        }
    }

    struct TokenReply: Decodable, Sendable { let token: String }

    @Test func aRefreshMayCallTheTokenEndpointThroughTheSameClient() async throws {
        let server = try Self.tokenServer()
        defer { server.shutdown() }
        let box = ClientBox()
        let authenticator = TokenAuthenticator(token: "stale") {
            try await box.connect.request(TestConnector(server, "/token", method: .post)).decoded(
                toType: TokenReply.self
            ).value.token
        }
        var configuration = ConnectConfiguration()
        // Long: a refresh that waited for itself would end only here, and a sanitizer's pass on
        // two busy cores can hold the three requests' tasks for seconds.
        configuration.timeout = .seconds(30)
        box.set(
            Connect(
                middleware: ConnectMiddleware(adapters: [authenticator], retriers: [authenticator]),
                configuration: configuration))
        // Success, not the timeout: the refresh's own request did not wait for the refresh.
        #expect(try await box.connect.request(TestConnector(server, "/me")).value == Data("me".utf8))
        // The token request went out untouched: no stale token, no wait for itself.
        let tokenRequest = try #require(server.requests.first { $0.path == "/token" })
        #expect(tokenRequest.header("Authorization") == nil)
    }

    @Test func aRefreshWhoseRequestsLoseTheirTaskEndsAtTheTimeout() async throws {
        let server = try Self.tokenServer()
        defer { server.shutdown() }
        let box = ClientBox()
        let authenticator = TokenAuthenticator(token: "stale") {
            // A detached task does not carry the refresh's task-local mark: its request waits
            // for the refresh it is part of, until the timeout ends the wait.
            try await Task.detached {
                try await box.connect.request(TestConnector(server, "/token")).decoded(toType: TokenReply.self).value
                    .token
            }.value
        }
        var configuration = ConnectConfiguration()
        configuration.timeout = .seconds(1)
        box.set(
            Connect(
                middleware: ConnectMiddleware(adapters: [authenticator], retriers: [authenticator]),
                configuration: configuration))
        // Without the timeout this would wait forever (the suite's time limit would fail it).
        let error = await connectError(box.connect.request(TestConnector(server, "/me")))
        guard case .timedOut? = error else {
            Issue.record("expected the refresh's timeout, got \(String(describing: error))")
            return
        }
    }

    @Test func sensitiveHeadersStayWithTheirOrigin() async throws {
        let other = try TestServer { _ in .text("elsewhere") }
        defer { other.shutdown() }
        let origin = try TestServer { _ in .redirect(to: other.baseURL.absoluteString + "/landing", status: 307) }
        defer { origin.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.sensitiveHeaders.insert("X-Tenant-Secret")
        let headers = [
            HTTPHeader(name: "X-API-Key", value: "k"), HTTPHeader(name: "X-Tenant-Secret", value: "s"),
            HTTPHeader(name: "Authorization", value: "Bearer t"), HTTPHeader(name: "X-Trace", value: "abc")
        ]
        _ = try await Connect(configuration: configuration).request(TestConnector(origin, "/start", headers: headers))
            .value
        let landed = try #require(other.requests.first)
        #expect(
            landed.header("X-API-Key") == nil && landed.header("X-Tenant-Secret") == nil
                && landed.header("Authorization") == nil)
        #expect(landed.header("X-Trace") == "abc")
        #expect(origin.requests.first?.header("X-Tenant-Secret") == "s")
    }

    @Test func theDebugLogRedactsTheSameHeadersAndAPasswordInTheURL() {
        var secrets = SensitiveHeaders.default
        secrets.insert("X-Tenant-Secret")
        let request = Request(
            method: .get, url: URL(string: "https://me:hunter2@api.example.com/items?x=1")!,
            headers: [
                HTTPHeader(name: "x-api-key", value: "k1"), HTTPHeader(name: "X-Tenant-Secret", value: "s1"),
                HTTPHeader(name: "X-Trace", value: "t1")
            ])
        let command = DebugLog.curlCommand(for: request, redacting: secrets)
        #expect(!command.contains("k1") && !command.contains("s1") && !command.contains("hunter2"))
        #expect(command.contains("t1") && command.contains("me:REDACTED@api.example.com/items?x=1"))
        let shown = DebugLog.curlCommand(for: request, redacting: nil)
        #expect(shown.contains("k1") && shown.contains("hunter2"))
        #expect(LoggingMonitor.describe(request) == "GET https://me:REDACTED@api.example.com/items")
    }

    /// Lets every redirect through, downgrades included when asked to.
    struct Permissive: RedirectHandler {
        let allowsDowngrade: Bool
        func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision { .follow }
        func allowsInsecureRedirect(_ response: Response, of request: Request, to proposed: Request) -> Bool {
            allowsDowngrade
        }
    }

    @Test func aRedirectFromHTTPSToHTTPIsRefusedUnlessAllowed() async throws {
        let mock = MockTransport()
        mock.register(
            .status(307, headers: [HTTPHeader(name: "Location", value: "http://api.example.com/plain")]),
            when: { $0.url.scheme == "https" })
        mock.register(.json(#"{"ok":true}"#), when: { $0.url.scheme == "http" })
        let secure = Request(
            method: .post, url: URL(string: "https://api.example.com/upload")!,
            headers: [.authorization(bearerToken: "t")], body: .data(Data("secret body".utf8)))
        for handler in [nil, Permissive(allowsDowngrade: false)] as [(any RedirectHandler)?] {
            var configuration = ConnectConfiguration()
            configuration.redirectHandler = handler
            let error = await connectError(Connect(configuration: configuration, transport: mock).send(secure))
            guard case .transport(let failure)? = error, failure.kind == .insecureRedirect, failure.requestSent else {
                Issue.record("expected the downgrade refused, got \(String(describing: error))")
                continue
            }
            #expect(failure.message.contains("cleartext"))
        }
        #expect(mock.requests.allSatisfy { $0.url.scheme == "https" })
        var configuration = ConnectConfiguration()
        configuration.redirectHandler = Permissive(allowsDowngrade: true)
        _ = try await Connect(configuration: configuration, transport: mock).send(secure).value
        let plain = try #require(mock.requests.last)
        #expect(plain.url.scheme == "http" && plain.headers.value(for: "Authorization") == nil)
    }

    /// A configuration under a short name, so that a test case names the setting, not the whole value.
    struct ConfigurationCase: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let configuration: ConnectConfiguration
        let problem: String?

        init(_ name: String, _ change: (inout ConnectConfiguration) -> Void, _ problem: String?) {
            testDescription = name
            var configuration = ConnectConfiguration()
            change(&configuration)
            self.configuration = configuration
            self.problem = problem
        }
    }

    @Test(arguments: [
        ConfigurationCase(
            "the defaults", { _ in },
            nil),
        ConfigurationCase(
            "timeouts of a nanosecond",
            {
                $0.timeout = .nanoseconds(1)
                $0.connectTimeout = .nanoseconds(1)
            },
            nil),
        ConfigurationCase(
            "the least limits",
            {
                $0.maximumConnectionsPerHost = 1
                $0.maximumResponseBodySize = 0
                $0.maximumRedirects = 0
            },
            nil),
        ConfigurationCase(
            "timeout 0", { $0.timeout = .zero },
            "configuration.timeout must be positive (0.0 seconds)"),
        ConfigurationCase(
            "timeout -5 ms", { $0.timeout = .milliseconds(-5) },
            "configuration.timeout must be positive (-0.005 seconds)"),
        ConfigurationCase(
            "connectTimeout 0", { $0.connectTimeout = .zero },
            "configuration.connectTimeout must be positive (0.0 seconds)"),
        ConfigurationCase(
            "connectTimeout -1 s", { $0.connectTimeout = .seconds(-1) },
            "configuration.connectTimeout must be positive (-1.0 seconds)"),
        ConfigurationCase(
            "maximumConnectionsPerHost 0", { $0.maximumConnectionsPerHost = 0 },
            "configuration.maximumConnectionsPerHost must be at least 1 (0)"),
        ConfigurationCase(
            "maximumConnectionsPerHost -2", { $0.maximumConnectionsPerHost = -2 },
            "configuration.maximumConnectionsPerHost must be at least 1 (-2)"),
        ConfigurationCase(
            "maximumResponseBodySize -1", { $0.maximumResponseBodySize = -1 },
            "configuration.maximumResponseBodySize is negative (-1)"),
        ConfigurationCase(
            "maximumRedirects -1", { $0.maximumRedirects = -1 },
            "configuration.maximumRedirects is negative (-1); 0 follows none"),
        ConfigurationCase(
            "connections.maximumSendRate 0", { $0.connections.maximumSendRate = 0 },
            "configuration.connections.maximumSendRate must be a positive number of bytes a second (0); nil does not limit"
        )
    ])
    func aSettingThatCannotWorkIsNamed(case: ConfigurationCase) {
        #expect(`case`.configuration.problem == `case`.problem)
    }

    @Test(arguments: [
        (nil as Duration?, false), (.nanoseconds(1), false), (.seconds(5), false), (.zero, true), (.seconds(-3), true)
    ])
    func aRequestsTimeoutOfZeroOrLessIsAProblem(timeout: Duration?, isProblem: Bool) throws {
        let request = Request(url: try #require(URL(string: "http://127.0.0.1/")), timeout: timeout)
        #expect((request.timeoutProblem != nil) == isProblem)
        if let timeout, isProblem { #expect(request.timeoutProblem?.contains("\(timeout) is not positive") == true) }
    }

    /// libcurl reads a timeout of 0 as "no limit", and a millisecond is the least Connect hands
    /// it, so a zero timeout would fail every request a millisecond in as a timeout, as if the
    /// network were slow. Every way to set one is refused by name instead, as is at most 0
    /// connections a host (libcurl's "any number").
    @Test func aTimeoutOfZeroOrLessFailsTheRequestBeforeAnythingIsSent() async throws {
        let server = try TestServer { _ in TestResponse(body: Data("ok".utf8)) }
        defer { server.shutdown() }
        func expectRefused(_ future: Future<some Any>, naming name: String, _ case: String) async {
            guard case .invalidRequest(let message)? = await connectError(future) else {
                Issue.record("\(`case`): expected invalidRequest")
                return
            }
            #expect(message.contains(name), "\(`case`): \(message)")
        }
        for (change, name) in [
            ({ (c: inout ConnectConfiguration) in c.timeout = .zero }, "configuration.timeout"),
            ({ (c: inout ConnectConfiguration) in c.timeout = .seconds(-1) }, "configuration.timeout"),
            ({ (c: inout ConnectConfiguration) in c.connectTimeout = .zero }, "configuration.connectTimeout"),
            ({ (c: inout ConnectConfiguration) in c.maximumConnectionsPerHost = 0 }, "maximumConnectionsPerHost")
        ] {
            var configuration = ConnectConfiguration()
            change(&configuration)
            let connect = Connect(configuration: configuration)
            // Twice: the second request finds the handle the first one left.
            for _ in 0..<2 { await expectRefused(connect.request(TestConnector(server, "/")), naming: name, name) }
        }
        let connect = Connect()
        await expectRefused(
            connect.request(TestConnector(server, "/", timeout: .zero)), naming: "is not positive", "a connector's")
        let url = server.baseURL.appending(path: "plain")
        await expectRefused(
            connect.send(Request(url: url, timeout: .milliseconds(-1))), naming: "is not positive", "a request's")
        await expectRefused(
            CurlTransport().send(Request(url: url, timeout: .zero)), naming: "is not positive", "the transport's own")
        #expect(server.requests.isEmpty)
        // A positive timeout under a millisecond is a valid one, if short: it is never refused.
        let short = await connectError(connect.request(TestConnector(server, "/", timeout: .nanoseconds(1))))
        if case .invalidRequest? = short { Issue.record("a positive timeout was refused") }
    }
}
