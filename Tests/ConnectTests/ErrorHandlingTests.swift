import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

enum AppError: Error, Equatable {
    case sessionExpired
    case server(String)
}

/// A plugin as an app would write it: the seed's one-method form.
struct AppErrorHandler: ErrorHandlerProtocol {
    func handle(response: [String: Any]) -> (any Error)? {
        if response["code"] as? String == "TOKEN_EXPIRED" { return AppError.sessionExpired }
        if response["code"] as? String == "IGNORE" { return nil }
        return AppError.server(response["reason"] as? String ?? "unknown")
    }
}

/// A handler that needs more than the dictionary.
struct StatusAwareHandler: ErrorHandlerProtocol {
    func handle(response: [String: Any]) -> (any Error)? { nil }

    func handle(failure: FailedExchange) -> (any Error)? {
        AppError.server(
            "\(failure.request.method) \(failure.statusCode) \(failure.response.header("X-Request-ID") ?? "-") \(failure.response.body.count)"
        )
    }
}

/// The HTTP failure a body produces with the default handler, from a real server.
func httpFailure(status: Int = 400, body: Data, contentType: String = "application/json") async throws -> HTTPFailure? {
    let server = try TestServer { _ in
        TestResponse(status: status, headers: [("Content-Type", contentType)], body: body)
    }
    defer { server.shutdown() }
    let error = await connectError(sharedConnect.request(TestConnector(server, "/fails")))
    guard case .http(let failure)? = error else {
        Issue.record("expected an HTTP failure, got \(String(describing: error))")
        return nil
    }
    return failure
}

@Suite("Error handling", .timeLimit(.minutes(3)))
struct ErrorHandlingTests {
    @Test(arguments: ["msg", "messge", "message", "error_description", "detail", "error", "err", "title"])
    func defaultHandlerFindsEachKey(key: String) async throws {
        let failure = try await httpFailure(body: Data(#"{"\#(key)":"Quota exceeded","other":"x"}"#.utf8))
        #expect(failure?.message == "Quota exceeded")
        #expect(failure?.statusCode == 400)
        #expect(failure?.description == "HTTP 400 Bad Request: Quota exceeded")
    }

    @Test(arguments: [
        (#"{"error":{"message":"Nested message","code":7}}"#, "Nested message"),
        (#"{"errors":[{"message":"First"},{"message":"Second"}]}"#, "First; Second"),
        (#"{"error":"invalid_grant","error_description":"The code expired"}"#, "The code expired"),
        (#"{"error":{"details":"x","msg":"Deep"}}"#, "Deep"),
        (#"{"message":404}"#, "404"),
        (#"{"message":2.5}"#, "2.5"),
        (#"{"message":null,"error":"Under null"}"#, "Under null"),
        (#"{"error":false,"detail":"After false"}"#, "After false"),
        (#"{"error":true,"message":"Real reason"}"#, "Real reason"),
        (#"["Name is required","Email is invalid"]"#, "Name is required; Email is invalid"),
        (#"[{"message":"In an array"}]"#, "In an array"),
        (#""A bare JSON string""#, "A bare JSON string"),
        // Validation errors name where they apply: FastAPI and pydantic (v1 and v2).
        (
            #"{"detail":[{"loc":["body","name"],"msg":"Field required","type":"missing","input":{}}]}"#,
            "body.name: Field required"
        ),
        (
            #"{"detail":[{"loc":["body","items",0,"qty"],"msg":"Input should be greater than 0"},{"loc":["query","page"],"msg":"Field required"}]}"#,
            "body.items.0.qty: Input should be greater than 0; query.page: Field required"
        ),
        (#"{"detail":"Not authenticated"}"#, "Not authenticated"),
        // Other conventions: a field, a GraphQL path, a JSON pointer, JSON:API's source.
        (#"{"errors":[{"field":"email","message":"is invalid"}]}"#, "email: is invalid"),
        (
            #"{"errors":[{"message":"Cannot query field","path":["user","nickname"]}]}"#,
            "user.nickname: Cannot query field"
        ),
        (
            #"{"errors":[{"detail":"must be positive","source":{"pointer":"/data/attributes/age"}}]}"#,
            "data/attributes/age: must be positive"
        ),
        // A location beside a nested message belongs to the nesting, not to it.
        (#"{"field":"ignored","error":{"message":"Inner"}}"#, "Inner")
    ])
    func defaultHandlerFindsNestedForms(body: String, expected: String) async throws {
        let failure = try await httpFailure(body: Data(body.utf8))
        #expect(failure?.message == expected)
    }

    @Test(arguments: [
        // RFC 9457's own examples and a validation problem.
        (
            #"{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","detail":"Your current balance is 30, but that costs 50.","instance":"/account/12345/msgs/abc"}"#,
            "You do not have enough credit. Your current balance is 30, but that costs 50."
        ),
        (
            ##"{"type":"https://example.net/validation-error","title":"Your request is not valid.","errors":[{"detail":"must be a positive integer","pointer":"#/age"},{"detail":"must be 'green', 'red' or 'blue'","pointer":"#/profile/color"}]}"##,
            "Your request is not valid. (age: must be a positive integer; profile/color: must be 'green', 'red' or 'blue')"
        ),
        (#"{"title":"Not Found"}"#, "Not Found"),
        (#"{"title":"Invalid order","detail":"The quantity is zero"}"#, "Invalid order: The quantity is zero"),
        (#"{"detail":"Only a detail"}"#, "Only a detail"),
        (#"{"type":"about:blank","status":500}"#, nil)
    ])
    func problemDetailsReadAsTitleDetailAndErrors(body: String, expected: String?) async throws {
        let failure = try await httpFailure(status: 422, body: Data(body.utf8), contentType: "application/problem+json")
        #expect(failure?.message == expected)
    }

    @Test(arguments: [
        #"{"error":true}"#, #"{"code":17}"#, #"{}"#, "[]", "null", #"{"message":""}"#, #"{"message":null}"#,
        #"{"message":"x",}"#
    ])
    func noMessageStillGivesStatusAndBody(body: String) async throws {
        let failure = try await httpFailure(status: 503, body: Data(body.utf8))
        #expect(failure?.message == nil)
        #expect(failure?.description == "HTTP 503 Service Unavailable. Body starts: \(body)")
    }

    @Test func htmlAndPlainTextBodies() async throws {
        let html = try await httpFailure(
            status: 502, body: Data("<html><body>Bad gateway</body></html>".utf8), contentType: "text/html")
        #expect(html?.message == nil)
        #expect(html?.description == "HTTP 502 Bad Gateway. Body starts: <html><body>Bad gateway</body></html>")
        let text = try await httpFailure(
            status: 429, body: Data("Slow down, please.\n".utf8), contentType: "text/plain")
        #expect(text?.message == "Slow down, please.")
    }

    @Test func emptyBody() async throws {
        let failure = try await httpFailure(status: 500, body: Data())
        #expect(failure?.message == nil)
        #expect(failure?.description == "HTTP 500 Internal Server Error")
    }

    @Test func hugeBodyGivesABoundedPreview() async throws {
        let huge = Data(repeating: UInt8(ascii: "x"), count: 10 << 20)
        let failure = try await httpFailure(status: 500, body: huge, contentType: "text/html")
        #expect(failure?.response.body.count == 10 << 20)
        #expect(failure?.bodyPreview.count == HTTPFailure.previewLength + 1)  // and an ellipsis
        #expect((failure?.description.count ?? .max) < 700)
    }

    @Test func invalidUTF8NeverCrashes() async throws {
        let bytes = Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0xC3, 0x28, 0x7D])
        let failure = try await httpFailure(status: 400, body: bytes, contentType: "text/plain")
        #expect(failure?.message == nil)
        #expect(failure?.description.hasPrefix("HTTP 400 Bad Request. Body starts: {\"") == true)
    }

    @Test func noContentAndNotModified() async throws {
        let server = try TestServer { request in TestResponse(status: request.path == "/empty" ? 204 : 304) }
        defer { server.shutdown() }
        let empty = try await sharedConnect.response(TestConnector(server, "/empty")).value
        #expect(empty.statusCode == 204 && empty.body.isEmpty)
        // 304 is outside 200–299: an error by default…
        #expect(await connectError(sharedConnect.request(TestConnector(server, "/cached")))?.statusCode == 304)
        // …accepted when the configuration says so…
        var configuration = ConnectConfiguration()
        configuration.acceptedStatusCodes = .successful + [304]
        #expect(
            try await Connect(configuration: configuration).response(TestConnector(server, "/cached")).value.statusCode
                == 304)
        // …or when the connector does.
        struct Cached: Connector {
            let baseURL: URL
            var endpoint: String { "/cached" }
            var method: HTTPMethod { .get }
            var headers: [HTTPHeader] { [] }
            var parameters: (any ParametersRepresentable)? { nil }
            var acceptedStatusCodes: AcceptedStatusCodes? { [304] }
        }
        #expect(try await sharedConnect.response(Cached(baseURL: server.baseURL)).value.statusCode == 304)
    }

    @Test func customPluginErrorsArriveUnchanged() async throws {
        let server = try TestServer { request in
            switch request.path {
            case "/expired": return .json(#"{"code":"TOKEN_EXPIRED"}"#, status: 401)
            case "/ignored": return .json(#"{"code":"IGNORE","data":1}"#, status: 418)
            default: return .json(#"{"code":"OTHER","reason":"Out of stock"}"#, status: 409)
            }
        }
        defer { server.shutdown() }
        let connect = Connect(errorHandler: AppErrorHandler())
        let expired = await outcome(connect.request(TestConnector(server, "/expired")))
        guard case .failure(let error) = expired else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? AppError == .sessionExpired)
        let other = await outcome(connect.request(TestConnector(server, "/other")).decoded(toType: Todo.self))
        guard case .failure(let otherError) = other else {
            Issue.record("expected a failure")
            return
        }
        #expect(otherError as? AppError == .server("Out of stock"))
        // A handler returning nil accepts the response, as the seed allows.
        let accepted = try await connect.response(TestConnector(server, "/ignored")).value
        #expect(accepted.statusCode == 418)
    }

    @Test func aRichHandlerSeesStatusHeadersBodyAndRequest() async throws {
        let server = try TestServer { _ in
            TestResponse(status: 422, headers: [("X-Request-ID", "r-9")], body: Data("nope".utf8))
        }
        defer { server.shutdown() }
        let result = await outcome(
            Connect(errorHandler: StatusAwareHandler()).request(TestConnector(server, "/x", method: .patch)))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? AppError == .server("PATCH 422 r-9 4"))
    }

    @Test func aConnectorCanOverrideTheHandler() async throws {
        let server = try TestServer { _ in .json(#"{"code":"TOKEN_EXPIRED"}"#, status: 401) }
        defer { server.shutdown() }
        struct Guarded: Connector {
            let baseURL: URL
            var endpoint: String { "/me" }
            var method: HTTPMethod { .get }
            var headers: [HTTPHeader] { [] }
            var parameters: (any ParametersRepresentable)? { nil }
            var errorHandler: (any ErrorHandlerProtocol)? { AppErrorHandler() }
        }
        let result = await outcome(sharedConnect.request(Guarded(baseURL: server.baseURL)))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? AppError == .sessionExpired)
    }

    /// The parsed body holds plain Swift values, and a null is ``JSONNull``, not an absent key.
    @Test func theParsedBodyHoldsSwiftValues() throws {
        let body = #"{"code":"E1","count":3,"ratio":0.5,"retry":true,"hint":null,"items":[1,"two"]}"#
        let url = try #require(URL(string: "http://127.0.0.1/"))
        func failed(_ text: String) -> FailedExchange {
            FailedExchange(
                request: Request(url: url), response: Response(statusCode: 400, body: Data(text.utf8), url: url))
        }
        let failure = failed(body)
        let object = try #require(failure.jsonObject)
        #expect(object["code"] as? String == "E1")
        #expect(object["count"] as? Int == 3)
        #expect(object["ratio"] as? Double == 0.5)
        #expect(object["retry"] as? Bool == true)
        #expect(object["hint"] is JSONNull)
        #expect(object["absent"] == nil)
        #expect((object["items"] as? [Any])?.count == 2)
        #expect(failed("[1]").jsonObject == nil)
        #expect(failed("[1]").json as? [Any] != nil)
        #expect(failed(#"{"a":1"#).json == nil)
    }

    @Test func theSeedsDictionaryFormOnTheDefaultHandler() {
        let error = ErrorHandler().handle(response: ["messge": "Spelled the old way"])
        #expect((error as? ServerMessage)?.message == "Spelled the old way")
        #expect(
            ErrorHandler(messageKeys: ["reason"]).message(in: ["reason": "Custom key", "message": "ignored"])
                == "Custom key")
    }

    /// Every case of ConnectError, each from a real situation, with its description.
    @Test func everyCaseFromARealSituation() async throws {
        let server = try TestServer { request in
            switch request.path {
            case "/slow": return TestResponse(behavior: .stall)
            case "/big": return TestResponse(body: Data(count: 4_096))
            case "/todo": return .json(#"{"userId":1,"id":1,"title":7,"completed":false}"#)
            default: return .json(#"{"message":"Nope"}"#, status: 403)
            }
        }
        defer { server.shutdown() }
        var small = ConnectConfiguration()
        small.maximumResponseBodySize = 1_024
        let limited = Connect(configuration: small)

        let invalid = await connectError(sharedConnect.request(TestConnector(server, "/users/{id}")))
        #expect(
            invalid?.description == #"Invalid request: no path parameter fills {id} in the endpoint "/users/{id}"."#)

        let refusing = try RefusingPort()
        let refused = await connectError(sharedConnect.request(TestConnector(url: refusing.url)))
        withExtendedLifetime(refusing) {}
        #expect(refused?.description.hasPrefix("Transport failure: Failed to connect to 127.0.0.1") == true)
        #expect(
            refused?.description.hasSuffix("(connectionRefused, before the request was sent, curl error 7).") == true)

        // Over a connection already open, so that the 200 ms run out while the answer is
        // awaited, not while a busy machine is still connecting ("Connection timed out after").
        _ = try await sharedConnect.request(TestConnector(server, "/todo")).value
        let timedOut = await connectError(
            sharedConnect.request(TestConnector(server, "/slow", timeout: .milliseconds(200))))
        #expect(
            timedOut?.description.hasPrefix("Timed out: Operation timed out after") == true,
            "\(String(describing: timedOut))")

        let slow = sharedConnect.request(TestConnector(server, "/slow"))
        slow.cancel()
        #expect(await connectError(slow)?.description == "The request was cancelled.")

        // TLS spoken to a plain-HTTP server: the handshake fails.
        let tls = await connectError(
            sharedConnect.request(TestConnector(url: URL(string: "https://127.0.0.1:\(server.port)/")!)))
        guard case .tls(let code, _)? = tls else {
            Issue.record("expected a TLS failure, got \(String(describing: tls))")
            return
        }
        #expect(code == 35)
        #expect(tls?.description.hasPrefix("TLS failure: ") == true)

        let http = await connectError(sharedConnect.request(TestConnector(server, "/forbidden")))
        #expect(http?.description == "HTTP 403 Forbidden: Nope")
        #expect(http?.errorDescription == "HTTP 403 Forbidden: Nope")
        #expect(http?.localizedDescription == "HTTP 403 Forbidden: Nope")

        let tooLarge = await connectError(limited.request(TestConnector(server, "/big")))
        #expect(tooLarge?.description == "The response body is larger than the limit of 1024 bytes.")

        let decoding = await connectError(
            sharedConnect.request(TestConnector(server, "/todo")).decoded(toType: Todo.self))
        guard case .decoding(let failure)? = decoding else {
            Issue.record("expected a decoding failure, got \(String(describing: decoding))")
            return
        }
        #expect(failure.codingPath == "title")
        #expect(
            decoding?.description.hasPrefix("Could not decode ConnectTests.Todo at `title`: expected String") == true)
        #expect(decoding?.description.contains(#"Body starts: {"userId":1"#) == true)
    }

    /// `retryNotBefore` comes back as the instant given, before, at and after the moment the
    /// failure type stores instants from, and takes part in equality and hashing.
    @Test(arguments: [Duration.seconds(-90), .zero, .nanoseconds(1), .seconds(3_600) + .nanoseconds(7)])
    func aFailureKeepsItsRetryInstantExactly(offset: Duration) {
        let instant = ContinuousClock.now + offset
        var failure = TransportFailure(kind: .circuitOpen, message: "open", requestSent: false, retryNotBefore: instant)
        #expect(failure.retryNotBefore == instant)
        let same = TransportFailure(kind: .circuitOpen, message: "open", requestSent: false, retryNotBefore: instant)
        #expect(failure == same && failure.hashValue == same.hashValue)
        failure.retryNotBefore = instant + .nanoseconds(1)
        #expect(failure != same && failure.retryNotBefore == instant + .nanoseconds(1))
        failure.retryNotBefore = nil
        #expect(failure.retryNotBefore == nil)
        #expect(failure == TransportFailure(kind: .circuitOpen, message: "open", requestSent: false))
    }
}
