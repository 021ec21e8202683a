import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// Idempotency keys: the header's two forms and the keys refused, how a connector's key reaches
/// its request, and against a real server, that every attempt of a POST carries the same key and
/// that a key is what lets the retry policy repeat a POST.
@Suite("Idempotency keys")
struct IdempotencyKeyTests {
    struct KeyCase: Sendable, CustomStringConvertible {
        let key: IdempotencyKey
        let headerValue: String
        let isValid: Bool
        var description: String { "\(key.value.debugDescription)\(key.quoted ? " quoted" : "")" }
    }

    @Test(arguments: [
        KeyCase(key: IdempotencyKey("order-42"), headerValue: "order-42", isValid: true),
        KeyCase(key: IdempotencyKey("order-42", quoted: true), headerValue: "\"order-42\"", isValid: true),
        KeyCase(
            key: IdempotencyKey(String(repeating: "k", count: 255)), headerValue: String(repeating: "k", count: 255),
            isValid: true),
        KeyCase(
            key: IdempotencyKey("a!#$%&'()*+,-./:;<=>?@[]^_`{|}~"), headerValue: "a!#$%&'()*+,-./:;<=>?@[]^_`{|}~",
            isValid: true),
        KeyCase(key: IdempotencyKey(""), headerValue: "", isValid: false),
        KeyCase(
            key: IdempotencyKey(String(repeating: "k", count: 256)), headerValue: String(repeating: "k", count: 256),
            isValid: false),
        KeyCase(key: IdempotencyKey("two words"), headerValue: "two words", isValid: false),
        KeyCase(key: IdempotencyKey("say \"hi\""), headerValue: "say \"hi\"", isValid: false),
        KeyCase(key: IdempotencyKey("back\\slash"), headerValue: "back\\slash", isValid: false),
        KeyCase(key: IdempotencyKey("clé"), headerValue: "clé", isValid: false),
        KeyCase(key: IdempotencyKey("tab\there"), headerValue: "tab\there", isValid: false)
    ])
    func headerForms(_ row: KeyCase) {
        #expect(row.key.headerValue == row.headerValue)
        #expect((row.key.problem == nil) == row.isValid, "\(String(describing: row.key.problem))")
        if row.isValid {
            // What a request's header holds reads back as the same key, quoting included.
            #expect(IdempotencyKey(headerValue: " \(row.headerValue) ") == row.key)
        }
    }

    @Test func randomKeysAreFreshUUIDs() {
        let keys = (0..<100).map { _ in IdempotencyKey.random() }
        #expect(Set(keys).count == 100)
        for key in keys {
            #expect(key.problem == nil)
            #expect(key.value.count == 36 && key.value == key.value.lowercased() && !key.quoted)
        }
        #expect(IdempotencyKey.random(quoted: true).headerValue.hasPrefix("\""))
    }

    @Test func aRequestsKeyIsItsHeader() {
        var request = Request(method: .post, url: URL(string: "http://127.0.0.1/")!)
        #expect(request.idempotencyKey == nil && !request.mayBeRepeated)
        request.idempotencyKey = IdempotencyKey("k-1")
        request.idempotencyKey = IdempotencyKey("k-2", quoted: true)
        #expect(request.headers == [HTTPHeader(name: "Idempotency-Key", value: "\"k-2\"")], "set replaces")
        #expect(request.idempotencyKey == IdempotencyKey("k-2", quoted: true))
        #expect(request.mayBeRepeated)
        request.idempotencyKey = nil
        #expect(request.headers.isEmpty && !request.mayBeRepeated)

        // A header of its own counts the same, whatever its case.
        request.headers = [HTTPHeader(name: "idempotency-key", value: "k-3")]
        #expect(request.idempotencyKey == IdempotencyKey("k-3") && request.mayBeRepeated)
        request.allowsRetry = false
        #expect(!request.mayBeRepeated, "a request that forbids repeating is not repeated")
    }

    @Test func requestsWithTwoKeysOrABadKeyAreNotSent() throws {
        var two = Request(
            method: .post, url: URL(string: "http://127.0.0.1/")!,
            headers: [HTTPHeader(name: "Idempotency-Key", value: "a"), HTTPHeader(name: "Idempotency-Key", value: "b")])
        #expect(throws: ConnectError.invalidRequest("the request has 2 Idempotency-Key headers")) { try two.validate() }
        two.idempotencyKey = IdempotencyKey("a")
        try two.validate()
        two.idempotencyKey = IdempotencyKey("a b")
        #expect(throws: ConnectError.self) { try two.validate() }
    }

    struct KeyedConnector: Connector {
        var baseURL: URL
        var endpoint = "/orders"
        var method: HTTPMethod = .post
        var headers: [HTTPHeader] = []
        var parameters: (any ParametersRepresentable)? = nil
        var key: @Sendable () -> IdempotencyKey?
        var allowsRetry: Bool?
        var idempotencyKey: IdempotencyKey? { key() }
    }

    @Test func aConnectorsKeyReachesItsRequestOnce() throws {
        let builder = Connect().builder
        let base = URL(string: "http://127.0.0.1:9/")!
        let random = KeyedConnector(baseURL: base, key: { .random() })
        let first = try builder.build(random)
        let second = try builder.build(random)
        #expect(first.headers.filter { $0.hasName("Idempotency-Key") }.count == 1)
        #expect(first.idempotencyKey != nil && first.idempotencyKey != second.idempotencyKey, "a key for each request")

        let fixed = try builder.build(KeyedConnector(baseURL: base, key: { IdempotencyKey("order-7", quoted: true) }))
        #expect(fixed.headers.last == HTTPHeader(name: "Idempotency-Key", value: "\"order-7\""))

        #expect(throws: ConnectError.self) {
            try builder.build(KeyedConnector(baseURL: base, key: { IdempotencyKey("") }))
        }
        var twice = KeyedConnector(baseURL: base, key: { IdempotencyKey("a") })
        twice.headers = [HTTPHeader(name: "Idempotency-Key", value: "b")]
        #expect(throws: ConnectError.self) { try builder.build(twice) }
    }

    /// A server that fails twice and then answers, as a payment API behind a flaky proxy might.
    /// The POST with a key is retried, every attempt with the key it started with; the POST
    /// without one is not retried (the server may have acted on it); a keyed POST that forbids
    /// retries is not either.
    @Test func everyAttemptOfAKeyedPostCarriesTheSameKey() async throws {
        let keys = Locked<[String?]>([])
        let server = try TestServer { request in
            let count = keys.withLock {
                $0.append(request.header("Idempotency-Key"))
                return $0.count
            }
            return count % 3 == 0 ? .text("charged") : TestResponse(status: 503)
        }
        defer { server.shutdown() }
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))

        let keyed = KeyedConnector(baseURL: server.baseURL, key: { .random() })
        let body = try await connect.request(keyed).value
        #expect(String(decoding: body, as: UTF8.self) == "charged")
        let sent = keys.withLock { $0 }
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { $0 != nil && $0 == sent[0] }, "\(sent)")

        _ = try await connect.request(keyed).value
        let second = keys.withLock { Array($0.dropFirst(3)) }
        #expect(second.count == 3 && Set(second).count == 1 && second[0] != sent[0], "a new request, a new key")

        let plain = KeyedConnector(baseURL: server.baseURL, key: { nil })
        let refused = await connectError(connect.request(plain))
        #expect(refused?.statusCode == 503)
        #expect(keys.withLock { $0.count } == 7, "a POST without a key is sent once")

        var forbidding = KeyedConnector(baseURL: server.baseURL, key: { IdempotencyKey("order-9") })
        forbidding.allowsRetry = false
        keys.withLock { $0 = [] }
        let forbidden = await connectError(connect.request(forbidding))
        #expect(forbidden?.statusCode == 503)
        #expect(keys.withLock { $0 } == ["order-9"])
    }
}
