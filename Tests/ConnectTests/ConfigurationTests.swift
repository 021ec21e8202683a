import ConnectFutures
import ConnectTestServer
import Foundation
import Logging
import Testing

@testable import Connect

@Suite("Configuration, body kinds and decoders", .timeLimit(.minutes(3)))
struct ConfigurationTests {
    @Test func defaultHeadersAndQueryItemsAreMergedAndTheConnectorWins() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.defaultHeaders = [.accept("application/json"), HTTPHeader(name: "X-App", value: "default")]
        configuration.defaultQueryItems = [QueryItem(name: "locale", value: "en"), QueryItem(name: "page", value: "1")]
        configuration.userAgent = "Demo/2.0"
        let connect = Connect(configuration: configuration)
        let connector = TestConnector(
            server, "/items", headers: [HTTPHeader(name: "X-App", value: "mine")],
            parameters: Parameter.query(key: "page", value: "3"))
        _ = try await connect.request(connector).value
        let received = try #require(server.requests.first)
        #expect(received.uri == "/items?locale=en&page=3")
        #expect(received.header("X-App") == "mine")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("User-Agent") == "Demo/2.0")
    }

    @Test func environmentsPointTheSameConnectorsElsewhere() async throws {
        let production = try TestServer { _ in .text("production") }
        defer { production.shutdown() }
        let staging = try TestServer { request in .text("staging \(request.uri)") }
        defer { staging.shutdown() }
        let connector = TestConnector(production, "/todos/1")

        var configuration = ConnectConfiguration()
        configuration.environment = .custom(URL(string: "\(staging.baseURL.absoluteString)/v2")!)
        let body = try await Connect(configuration: configuration).request(connector).value
        #expect(String(decoding: body, as: UTF8.self) == "staging /v2/todos/1")

        // A host override sends only that host's connectors elsewhere, e.g. to a CDN.
        configuration.environment = .production
        configuration.environment.hostOverrides["cdn.invalid"] = staging.baseURL
        let connect = Connect(configuration: configuration)
        let image = TestConnector(url: URL(string: "http://cdn.invalid/images")!, endpoint: "/1.png")
        // The override replaces the whole base URL, its path included.
        #expect(String(decoding: try await connect.request(image).value, as: UTF8.self) == "staging /1.png")
        #expect(String(decoding: try await connect.request(connector).value, as: UTF8.self) == "production")
    }

    @Test func theDevelopmentEnvironmentLogsEveryRequest() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let lines = Recorder()
        var configuration = ConnectConfiguration()
        configuration.environment = .development(server.baseURL)
        configuration.logger = Logger(label: "dev") { _ in CapturingLogHandler(lines: lines) }
        _ = try await Connect(configuration: configuration).request(
            TestConnector(url: URL(string: "https://api.example.com")!, endpoint: "/ping")
        ).value
        #expect(lines.all.contains { $0.contains("curl -v") && $0.contains("\(server.baseURL.absoluteString)/ping") })
        #expect(lines.all.contains { $0.contains("HTTP/1.1 200 OK") })
    }

    @Test func httpTaskBodyKinds() async throws {
        let server = try TestServer { request in
            .text("\(request.method) \(request.uri) \(request.header("Content-Type") ?? "-") \(request.bodyText)")
        }
        defer { server.shutdown() }
        func send(_ task: HTTPTask, method: HTTPMethod = .post, headers: [HTTPHeader] = []) async throws -> String {
            String(
                decoding: try await sharedConnect.request(
                    TestConnector(server, "/t", method: method, headers: headers, parameters: task)
                ).value, as: UTF8.self)
        }
        #expect(try await send(.requestPlain, method: .get) == "GET /t - ")
        #expect(try await send(.requestData(Data("raw".utf8))) == "POST /t application/octet-stream raw")
        #expect(
            try await send(.requestData(Data("<a/>".utf8), contentType: "application/xml"))
                == "POST /t application/xml <a/>")
        struct Item: Encodable { let createdAt = Date(timeIntervalSince1970: 0) }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        #expect(
            try await send(.requestJSONEncodable(Item(), encoder: encoder))
                == #"POST /t application/json {"created_at":"1970-01-01T00:00:00Z"}"#)
        #expect(
            try await send(.requestParameters(["b": "2 3", "a": "x&y"], encoding: .queryString), method: .get)
                == "GET /t?a=x%26y&b=2%203 - ")
        #expect(
            try await send(.requestParameters(["b": "2 3", "a": "x&y"], encoding: .httpBody))
                == "POST /t application/x-www-form-urlencoded; charset=utf-8 a=x%26y&b=2%203")
        // The connector's own Content-Type wins.
        #expect(
            try await send(.requestData(Data("{}".utf8)), headers: [.contentType("application/vnd.api+json")])
                == "POST /t application/vnd.api+json {}")
    }

    @Test func theConfiguredEncoderIsUsedForJSONObjects() async throws {
        let server = try TestServer { request in .text(request.bodyText) }
        defer { server.shutdown() }
        struct Event: Encodable { let startsAt = Date(timeIntervalSince1970: 86_400) }
        let configuration = ConnectConfiguration()
        configuration.jsonEncoder.dateEncodingStrategy = .iso8601  // JSONEncoder is a class
        let body = try await Connect(configuration: configuration).request(
            TestConnector(server, "/e", method: .post, parameters: Parameter.jsonObject(value: Event()))
        ).value
        #expect(String(decoding: body, as: UTF8.self) == #"{"startsAt":"1970-01-02T00:00:00Z"}"#)
    }

    @Test func responseDecoders() async throws {
        let server = try TestServer { request in
            switch request.path {
            case "/latin1":
                return TestResponse(
                    headers: [("Content-Type", "text/plain; charset=ISO-8859-1")], body: Data([0x63, 0x61, 0x66, 0xE9]))
            case "/utf8": return .text("café ☕️")
            case "/none": return TestResponse(status: 204)
            case "/snake": return .json(#"{"user_id":5,"created_at":"1970-01-01T00:01:00Z"}"#)
            default:
                return TestResponse(
                    headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data([0xFF, 0xFE, 0x00]))
            }
        }
        defer { server.shutdown() }
        #expect(try await sharedConnect.response(TestConnector(server, "/latin1")).text().value == "café")
        #expect(try await sharedConnect.response(TestConnector(server, "/utf8")).text().value == "café ☕️")
        let invalid = await connectError(sharedConnect.response(TestConnector(server, "/bad")).text())
        guard case .decoding? = invalid else {
            Issue.record("expected a decoding failure, got \(String(describing: invalid))")
            return
        }

        #expect(
            try await sharedConnect.request(TestConnector(server, "/none", method: .delete)).decoded(
                toType: EmptyResponse.self
            ).value == EmptyResponse())
        #expect(
            try await sharedConnect.response(TestConnector(server, "/none")).decoded(
                with: JSONResponseDecoder<EmptyResponse>()
            ).value == EmptyResponse())

        struct Record: Decodable, Sendable {
            let userId: Int
            let createdAt: Date
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let record = try await sharedConnect.response(TestConnector(server, "/snake")).decoded(
            with: JSONResponseDecoder(Record.self, decoder: decoder)
        ).value
        #expect(record.userId == 5 && record.createdAt == Date(timeIntervalSince1970: 60))
        let raw = try await sharedConnect.response(TestConnector(server, "/latin1")).decoded(
            with: RawDataResponseDecoder()
        ).value
        #expect(raw == Data([0x63, 0x61, 0x66, 0xE9]))
        // decoded(toType:decoder:) on request() keeps working as in the seed, with a configured decoder.
        let seedStyle = try await sharedConnect.request(TestConnector(server, "/snake")).decoded(
            toType: Record.self, decoder: decoder
        ).value
        #expect(seedStyle.userId == 5)
    }
}
