import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

struct RefuseOtherHosts: RedirectHandler {
    let allowedHost: String
    func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision {
        proposed.url.host == allowedHost ? .follow : .refuse
    }
}

struct Reroute: RedirectHandler {
    let target: URL
    func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision {
        var modified = proposed
        modified.url = target
        modified.setHeader(HTTPHeader(name: "X-Rerouted", value: "yes"))
        return .followModified(modified)
    }
}

@Suite("Redirect control", .timeLimit(.minutes(3)))
struct RedirectTests {
    @Test func aHandlerCanRefuseARedirect() async throws {
        let server = try TestServer { _ in .redirect(to: "http://localhost:1/elsewhere") }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.redirectHandler = RefuseOtherHosts(allowedHost: "127.0.0.1")
        configuration.acceptedStatusCodes = .successful + [302]
        let response = try await Connect(configuration: configuration).response(TestConnector(server, "/start")).value
        #expect(response.statusCode == 302)
        #expect(response.header("Location") == "http://localhost:1/elsewhere")
        #expect(server.requests.count == 1)
    }

    @Test func aHandlerCanModifyTheRedirectedRequest() async throws {
        let target = try TestServer { request in .text("target saw \(request.header("X-Rerouted") ?? "-")") }
        defer { target.shutdown() }
        let origin = try TestServer { _ in .redirect(to: "/moved") }
        defer { origin.shutdown() }
        struct Rerouted: Connector {
            let baseURL: URL
            let target: URL
            var endpoint: String { "/start" }
            var method: HTTPMethod { .get }
            var headers: [HTTPHeader] { [] }
            var parameters: (any ParametersRepresentable)? { nil }
            var redirectHandler: (any RedirectHandler)? { Reroute(target: target) }  // per connector
        }
        let body = try await sharedConnect.request(
            Rerouted(baseURL: origin.baseURL, target: URL(string: "\(target.baseURL.absoluteString)/landing")!)
        ).value
        #expect(String(decoding: body, as: UTF8.self) == "target saw yes")
        #expect(target.requests.first?.uri == "/landing")
    }

    @Test(arguments: [(301, "GET", 0), (302, "GET", 0), (303, "GET", 0), (307, "POST", 4), (308, "POST", 4)])
    func postRedirectsFollowTheRules(status: Int, method: String, bodyLength: Int) async throws {
        let server = try TestServer { request in
            request.uri == "/form"
                ? .redirect(to: "/result", status: status) : .text("\(request.method) \(request.body.count)")
        }
        defer { server.shutdown() }
        let body = try await sharedConnect.request(
            TestConnector(server, "/form", method: .post, parameters: HTTPTask.requestData(Data("data".utf8)))
        ).value
        #expect(String(decoding: body, as: UTF8.self) == "\(method) \(bodyLength)")
    }

    @Test func redirectsWorkOverMocks() async throws {
        let mock = MockTransport()
        mock.register(.status(302, headers: [HTTPHeader(name: "Location", value: "/b")]), when: { $0.url.path == "/a" })
        mock.register(.json(#"{"done":true}"#), when: { $0.url.path == "/b" })
        let response = try await Connect(transport: mock).response(
            TestConnector(url: URL(string: "https://api.example.com")!, endpoint: "/a")
        ).value
        #expect(response.statusCode == 200 && response.metrics.redirectCount == 1)
        #expect(mock.requests.map(\.url.path) == ["/a", "/b"])
    }

    @Test func zeroMaximumRedirectsFollowsNone() async throws {
        let server = try TestServer { _ in .redirect(to: "/next") }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumRedirects = 0
        configuration.acceptedStatusCodes = .successful + [302]
        let response = try await Connect(configuration: configuration).response(TestConnector(server, "/")).value
        #expect(response.statusCode == 302 && server.requests.count == 1)
    }
}
