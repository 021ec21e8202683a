import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// The one-line forms a newcomer from the seeds or from Alamofire guesses first.
@Suite("Front door", .timeLimit(.minutes(3)))
struct FrontDoorTests {
    @Test func aTokenAuthenticatorListedOnceAdaptsAndRetries() async throws {
        let server = try freshTokenServer()
        defer { server.shutdown() }
        let refreshes = Hits()
        let authenticator = TokenAuthenticator(token: "stale") {
            refreshes.next()
            return "fresh"
        }
        let connect = Connect(middleware: ConnectMiddleware(adapters: [authenticator]))
        #expect(try await connect.request(TestConnector(server, "/me")).value == Data("ok".utf8))
        #expect(refreshes.value == 1)
        // Listed in both places, it is still asked once.
        let both = ConnectMiddleware(adapters: [authenticator], retriers: [authenticator])
        #expect(both.retriers.count == 1)
    }

    @Test func retriesAreCountedEitherWay() {
        var policy = RetryPolicy(maximumAttempts: 3)
        #expect(policy.maximumRetries == 2)
        policy.maximumRetries = 5
        #expect(policy.maximumAttempts == 6)
    }

    struct Account: Decodable, Sendable, Equatable {
        let accountNumber: String
        let openedAt: Date
    }

    @Test func theConfigurationsJSONDecoderDecodesResponses() async throws {
        let server = try TestServer { _ in .json(#"{"account_number":"42","opened_at":"2026-01-02T03:04:05Z"}"#) }
        defer { server.shutdown() }
        // JSONDecoder is a class: its strategies are set on the configuration's instance.
        let configuration = ConnectConfiguration()
        configuration.jsonDecoder.keyDecodingStrategy = .convertFromSnakeCase
        configuration.jsonDecoder.dateDecodingStrategy = .iso8601
        let account = try await Connect(configuration: configuration).request(TestConnector(server, "/account"))
            .decoded(toType: Account.self).value
        #expect(account.accountNumber == "42")
        // A decoder passed to the call still wins.
        let plain = await outcome(
            Connect(configuration: configuration).request(TestConnector(server, "/account")).decoded(
                toType: Account.self, decoder: JSONDecoder()))
        guard case .failure(ConnectError.decoding) = plain else {
            Issue.record("expected the call's own decoder to fail on snake_case keys, got \(plain)")
            return
        }
    }

    @Test func aMockForAConnectorMatchesItAsTheClientSendsIt() async throws {
        let mock = MockTransport()
        var configuration = ConnectConfiguration()
        configuration.environment = .development(URL(string: "http://localhost:8080")!)
        let connect = Connect(configuration: configuration, transport: mock)
        let mine = TestConnector(url: URL(string: "https://api.example.com")!, endpoint: "/todos/1")
        mock.register(.json(#"{"userId":1,"id":1,"title":"mocked","completed":false}"#), for: mine)
        let todo = try await connect.request(mine).decoded(toType: Todo.self).value
        #expect(todo.title == "mocked")
        #expect(mock.requests.last?.url.absoluteString == "http://localhost:8080/todos/1")
        // The same path on another host is another endpoint.
        let elsewhere = Request(method: .get, url: URL(string: "http://elsewhere.example.com/todos/1")!)
        guard case .transport(let failure)? = await connectError(connect.send(elsewhere)) else {
            Issue.record("expected no mock for another host")
            return
        }
        #expect(failure.kind == .noMockResponse)
    }

    @Test func networkKitsSpellingOfURLParameters() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        _ = try await sharedConnect.request(
            TestConnector(server, "/search", parameters: HTTPTask.requestParameters(["q": "swift"], .url))
        ).value
        _ = try await sharedConnect.request(
            TestConnector(
                server, "/form", method: .post, parameters: HTTPTask.requestParameters(["q": "swift"], .httpBody))
        ).value
        #expect(server.requests[0].uri == "/search?q=swift")
        #expect(server.requests[1].bodyText == "q=swift")
        #expect(server.requests[1].header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
    }
}
