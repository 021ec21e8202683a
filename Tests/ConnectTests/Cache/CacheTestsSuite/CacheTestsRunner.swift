import ConnectFutures
import ConnectTestServer
import Foundation
import Synchronization

@testable import Connect

/// Runs a cache-tests case as the suite's own runner and server do (its `test-engine`): the
/// server answers each request from the case's configuration (dates as seconds from its now, a
/// 304 only to the conditional request the case expects, `999` when that request was not
/// conditional) and records what it saw; the client sends the requests in turn through a cache
/// and checks each response, then the server's record.
///
/// One difference, for a client: a step whose server drops the connection ends in a
/// ``TransportFailure`` here where a proxy would answer 502; the step then passes if the case
/// asked for a response not from the cache (`must-revalidate`, `no-cache`), and fails if it
/// asked for the stored one, as the browsers' results on cache-tests.fyi read.
final class CacheTestsRunner: Sendable {
    enum Outcome: Equatable {
        case passed
        case failed(String)
        /// A preparing step did not go as the case needs: the result says nothing.
        case setupFailed(String)
        case notApplicable(String)

        var label: String {
            switch self {
            case .passed: "passed"
            case .failed: "failed"
            case .setupFailed: "setup failed"
            case .notApplicable: "not applicable"
            }
        }
    }

    /// A check that did not hold: in a preparing step (`setup`) or in the behaviour tested.
    struct CheckFailure: Error {
        var setup: Bool
        var message: String
    }

    let clock = ResponseCacheTests.TestClock()
    private let origin: CacheTestsOrigin
    private let server: TestServer
    /// Follows redirects, as fetch() does by default; `manual` returns them.
    private let following: Connect
    private let manual: Connect

    init() throws {
        let origin = CacheTestsOrigin(clock: clock)
        self.origin = origin
        server = try TestServer { origin.answer($0) }
        let clock = clock
        var configuration = ConnectConfiguration()
        configuration.cache = ResponseCache(store: MemoryCacheStore(capacity: 64 << 20), clock: { clock.now })
        configuration.acceptedStatusCodes = AcceptedStatusCodes(100...999)
        following = Connect(configuration: configuration)
        configuration.maximumRedirects = 0
        manual = Connect(configuration: configuration)
    }

    func shutdown() {
        server.shutdown()
    }

    func run(_ testCase: CacheTestCase) async -> Outcome {
        let uuid = UUID().uuidString.lowercased()
        origin.register(uuid, requests: testCase.requests)
        var responses: [Response?] = []
        do {
            for (index, step) in testCase.requests.enumerated() {
                let response = try await send(
                    step, number: index + 1, of: testCase, uuid: uuid, previous: responses.last ?? nil)
                responses.append(response)
                if step["pause_after"]?.bool == true { clock.advance(by: 3) }
            }
            try checkServerRecords(testCase.requests, responses, origin.records(of: uuid))
            return .passed
        } catch let failure as CheckFailure {
            if ProcessInfo.processInfo.environment["CACHE_TESTS_ONLY"] != nil {
                for record in origin.records(of: uuid) { print("server saw:", record.method, record.headers) }
                for response in responses {
                    print(
                        "client got:",
                        response.map { "\($0.statusCode) \($0.cacheStatus.map(\.rawValue) ?? "-") \($0.headers)" }
                            ?? "none")
                }
            }
            return failure.setup ? .setupFailed(failure.message) : .failed(failure.message)
        } catch {
            return .failed("\(error)")
        }
    }

    private static func isSetup(_ step: [String: JSONValue], _ check: String) -> Bool {
        step["setup"]?.bool == true || (step["setup_tests"]?.array ?? []).contains(.string(check))
    }

    private static func require(_ condition: Bool, setup: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CheckFailure(setup: setup, message: message()) }
    }

    /// Sends one step's request and checks its response (`checkResponse` of the suite's runner);
    /// `nil` when the connection was dropped as the step asked and no response came.
    private func send(
        _ step: [String: JSONValue], number: Int, of testCase: CacheTestCase, uuid: String, previous: Response?
    ) async throws -> Response? {
        var path = "/test/\(uuid)"
        if let filename = step["filename"]?.string { path += "/\(filename)" }
        if let query = step["query_arg"]?.string { path += "?\(query)" }
        var request = Request(url: URL(string: path, relativeTo: serverURL)!.absoluteURL)
        if let method = step["request_method"]?.string { request.method = HTTPMethod(rawValue: method) }
        for field in step["request_headers"]?.array ?? [] {
            guard let pair = field.array, let name = pair.first?.string else { continue }
            var value = pair.count > 1 ? pair[1] : .string("")
            // magic_ims: a date as seconds from the previous response's Server-Now.
            if step["magic_ims"]?.bool == true, name.lowercased() == "if-modified-since", let delta = value.int,
                let now = previous?.header("Server-Now").flatMap(Int.init)
            {
                value = .string(CacheDecisionTests.httpDate(now + delta))
            }
            request.headers.append(HTTPHeader(name: name, value: value.string ?? value.int.map(String.init) ?? ""))
        }
        request.headers.append(HTTPHeader(name: "Test-ID", value: testCase.id))
        request.headers.append(HTTPHeader(name: "Req-Num", value: String(number)))
        if let body = step["request_body"]?.string { request.body = .data(Data(body.utf8)) }
        // fetch()'s cache modes as the Fetch standard's HTTP-network-or-cache fetch runs them.
        let hasCacheControl = request.headers.contains(name: "Cache-Control")
        switch step["cache"]?.string {
        case "no-cache":
            if !hasCacheControl { request.headers.append(HTTPHeader(name: "Cache-Control", value: "max-age=0")) }
        case "reload":
            request.cachePolicy = .reloadIgnoringLocalCacheData
            if !hasCacheControl { request.headers.append(HTTPHeader(name: "Cache-Control", value: "no-cache")) }
        case "force-cache": request.cachePolicy = .returnCacheDataElseLoad
        case "only-if-cached": request.cachePolicy = .returnCacheDataDontLoad
        default: break
        }
        let client = step["redirect"]?.string == "manual" ? manual : following
        let typeSetup = Self.isSetup(step, "expected_type")
        let response: Response
        do {
            response = try await client.send(request).value
        } catch {
            guard step["disconnect"]?.bool == true else {
                throw CheckFailure(setup: step["setup"]?.bool == true, message: "Request \(number) failed: \(error)")
            }
            try Self.require(
                step["expected_type"]?.string != "cached", setup: typeSetup,
                "Response \(number) does not come from cache: \(error)")
            return nil
        }
        try check(response, of: step, number: number, uuid: uuid)
        return response
    }

    private func check(_ response: Response, of step: [String: JSONValue], number: Int, uuid: String) throws {
        let served = response.header("Server-Request-Count").flatMap(Int.init)
        if let numbers = response.header("Request-Numbers")?.split(separator: " "), Set(numbers).count != numbers.count
        {
            throw CheckFailure(setup: false, message: "retry")
        }
        let typeSetup = Self.isSetup(step, "expected_type")
        switch step["expected_type"]?.string {
        case "cached":
            if !(response.statusCode == 304 && served == nil) {
                try Self.require(
                    (served ?? .max) < number, setup: typeSetup, "Response \(number) does not come from cache")
            }
        case "not_cached":
            try Self.require(served == number, setup: typeSetup, "Response \(number) comes from cache")
        default: break
        }

        if let expected = step["expected_status"] {
            if let status = expected.int {
                try Self.require(
                    response.statusCode == status, setup: Self.isSetup(step, "expected_status"),
                    "Response \(number) status is \(response.statusCode), not \(status)")
            }
        } else if let status = step["response_status"]?.array?.first?.int {
            try Self.require(
                response.statusCode == status, setup: true,
                "Response \(number) status is \(response.statusCode), not \(status)")
        } else if response.statusCode == 999 {
            throw CheckFailure(
                setup: typeSetup, message: "Request \(number) should have been conditional, but it was not.")
        } else {
            try Self.require(
                response.statusCode == 200, setup: true, "Response \(number) status is \(response.statusCode), not 200")
        }

        let headersSetup = Self.isSetup(step, "expected_response_headers")
        for expectation in step["expected_response_headers"]?.array ?? [] {
            if let name = expectation.string {
                try Self.require(
                    response.header(name) != nil, setup: headersSetup, "Response \(number) \(name) header not present.")
                continue
            }
            guard let parts = expectation.array, let name = parts.first?.string, parts.count > 1 else { continue }
            let value = Self.joined(response, name)
            if parts.count > 2 {
                try Self.require(value != nil, setup: headersSetup, "Response \(number) \(name) header not present.")
                if parts[1].string == "=", let other = parts[2].string {
                    try Self.require(
                        value == Self.joined(response, other), setup: headersSetup,
                        "Response \(number) header \(name) is \(value ?? ""), should match \(other)")
                } else if parts[1].string == ">", let bound = parts[2].int {
                    try Self.require(
                        (value.flatMap { Int($0) } ?? .min) > bound, setup: headersSetup,
                        "Response \(number) header \(name) is \(value ?? ""), should be bigger than \(bound)")
                }
            } else {
                let expected = CacheTestsOrigin.fixedUp(
                    name: name, value: parts[1], serverNow: response.header("Server-Now").flatMap(Int.init),
                    baseURL: response.header("Server-Base-Url"), step: step)
                try Self.require(
                    value == expected, setup: headersSetup,
                    "Response \(number) header \(name) is \"\(value ?? "")\", not \"\(expected)\"")
            }
        }
        let missingSetup = Self.isSetup(step, "expected_response_headers_missing")
        for expectation in step["expected_response_headers_missing"]?.array ?? [] {
            if let name = expectation.string {
                try Self.require(
                    response.header(name) == nil, setup: missingSetup,
                    "Response \(number) includes unexpected header \(name): \"\(response.header(name) ?? "")\"")
            } else if let parts = expectation.array, let name = parts.first?.string, let unwanted = parts.last?.string,
                let value = Self.joined(response, name)
            {
                try Self.require(
                    !value.contains(unwanted), setup: missingSetup,
                    "Response \(number) header \(name) still has value \"\(value)\"")
            }
        }

        if step["check_body"]?.bool == false { return }
        let body = String(decoding: response.body, as: UTF8.self)
        if let expected = step["expected_response_text"] {
            if let text = expected.string {
                try Self.require(
                    body == text, setup: Self.isSetup(step, "expected_response_text"),
                    "Response body is \"\(body)\", not \"\(text)\"")
            }
        } else if let text = step["response_body"]?.string {
            try Self.require(body == text, setup: true, "Response body is \"\(body)\", not \"\(text)\"")
        } else if ![204, 304].contains(response.statusCode), step["request_method"]?.string != "HEAD" {
            try Self.require(body == uuid, setup: true, "Response body is \"\(body)\", not \"\(uuid)\"")
        }
    }

    /// Every value of the field `name`, joined with ", " as fetch() reads them.
    private static func joined(_ response: Response, _ name: String) -> String? {
        let values = response.headers.filter { $0.hasName(name) }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// `checkServerRequests` of the suite's runner: what the server saw of each request that
    /// reached it, and the response fields the client must have been handed.
    private func checkServerRecords(
        _ steps: [[String: JSONValue]], _ responses: [Response?], _ records: [CacheTestsOrigin.Record]
    ) throws {
        var recordIndex = 0
        for (index, step) in steps.enumerated() {
            let number = index + 1
            let typeSetup = Self.isSetup(step, "expected_type")
            let expectedType = step["expected_type"]?.string
            if expectedType == "cached" { continue }
            let record = recordIndex < records.count ? records[recordIndex] : nil
            if expectedType == "not_cached" {
                try Self.require(
                    record?.requestNumber == number, setup: typeSetup,
                    "Response \(number) comes from cache (\(record?.requestNumber.map(String.init) ?? "none") on server)"
                )
            }
            recordIndex += 1
            var validating: [String] = []
            if expectedType == "etag_validated" { validating.append("if-none-match") }
            if expectedType == "lm_validated" { validating.append("if-modified-since") }
            for name in validating {
                guard let record else {
                    throw CheckFailure(setup: typeSetup, message: "request \(number) wasn't sent to server")
                }
                try Self.require(
                    record.headers[name] != nil, setup: typeSetup, "request \(number) doesn't have \(name) header")
            }
            let presentSetup = Self.isSetup(step, "expected_request_headers")
            for expectation in step["expected_request_headers"]?.array ?? [] {
                if let name = expectation.string {
                    try Self.require(
                        record?.headers[name.lowercased()] != nil, setup: presentSetup,
                        "Request \(number) \(name) header not present.")
                } else if let parts = expectation.array, let name = parts.first?.string, let value = parts.last?.string
                {
                    let received = record?.headers[name.lowercased()]
                    try Self.require(
                        received == value, setup: presentSetup,
                        "Request \(number) header \(name) is \"\(received ?? "")\", not \"\(value)\"")
                }
            }
            let missingSetup = Self.isSetup(step, "expected_request_headers_missing")
            for expectation in step["expected_request_headers_missing"]?.array ?? [] {
                if let name = expectation.string {
                    try Self.require(
                        record?.headers[name.lowercased()] == nil, setup: missingSetup,
                        "Request \(number) \(name) header present.")
                } else if let parts = expectation.array, let name = parts.first?.string, let value = parts.last?.string
                {
                    try Self.require(
                        record?.headers[name.lowercased()] != value, setup: missingSetup,
                        "Request \(number) header \(name) is \"\(value)\"")
                }
            }
            if let record, index < responses.count, let response = responses[index] {
                for (name, value) in record.responseHeaders where name.lowercased() != "date" {
                    let received = Self.joined(response, name)
                    try Self.require(
                        received == value, setup: false,
                        "Response \(number) header \(name) is \"\(received ?? "")\", not \"\(value)\"")
                }
            }
            if let method = step["expected_method"]?.string {
                try Self.require(
                    record?.method == method, setup: Self.isSetup(step, "expected_method"),
                    "Request \(number) had method \(record?.method ?? "none"), not \(method)")
            }
        }
    }

    private var serverURL: URL { server.baseURL }
}

/// The suite's server (`handle-test.mjs`), answering every case's requests by its run id.
final class CacheTestsOrigin: Sendable {
    /// What the server saw of one request, and the response fields a client must then see.
    struct Record: Sendable {
        var requestNumber: Int?
        var method: String
        /// Lowercased names; repeated fields joined with ", ".
        var headers: [String: String]
        /// The fields the configuration asked to be checked, as sent.
        var responseHeaders: [(String, String)]
    }

    private struct Run: Sendable {
        var requests: [[String: JSONValue]]
        var records: [Record] = []
        /// Each sent response's fields, by request number: a later 304 is matched against
        /// them.
        var sent: [Int: [(String, String)]] = [:]
    }

    let clock: ResponseCacheTests.TestClock
    private let runs = Locked<[String: Run]>([:])

    init(clock: ResponseCacheTests.TestClock) {
        self.clock = clock
    }

    func register(_ uuid: String, requests: [[String: JSONValue]]) {
        runs.withLock { $0[uuid] = Run(requests: requests) }
    }

    func records(of uuid: String) -> [Record] {
        runs.withLock { $0[uuid]?.records ?? [] }
    }

    static let dateFields: Set<String> = [
        "date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"
    ]
    static let locationFields: Set<String> = ["location", "content-location"]

    func answer(_ request: RecordedRequest) -> TestResponse {
        let segments = request.path.split(separator: "/")
        guard segments.count >= 2, segments[0] == "test" else { return TestResponse(status: 404) }
        let uuid = String(segments[1])
        let fields = Dictionary(
            request.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { "\($0), \($1)" })
        let clientNumber = fields["req-num"].flatMap(Int.init)
        return runs.withLock { runs -> TestResponse in
            guard var run = runs[uuid] else { return TestResponse(status: 409) }
            let serverNumber = run.records.count + 1
            let number = clientNumber ?? serverNumber
            guard number >= 1, number <= run.requests.count else { return TestResponse(status: 409) }
            let step = run.requests[number - 1]
            if let pause = step["response_pause"]?.int { clock.advance(by: pause) }
            let now = clock.now

            var status = step["response_status"]?.array?.first?.int ?? 200
            if let expected = step["expected_type"]?.string, expected.hasSuffix("validated") {
                // The previous request's configured field: as the server sent it, or, if that
                // request never reached it, as configured (a date still a number matches nothing).
                func previousValue(_ name: String) -> String? {
                    if let sent = run.sent[number - 1] { return sent.last { $0.0.lowercased() == name }?.1 }
                    guard number >= 2 else { return nil }
                    let configured = (run.requests[number - 2]["response_headers"]?.array ?? []).compactMap(\.array)
                    return configured.last { $0.first?.string?.lowercased() == name }.flatMap {
                        $0.count > 1 ? $0[1].string : nil
                    }
                }
                status = 999
                if let lastModified = previousValue("last-modified"), fields["if-modified-since"] == lastModified {
                    status = 304
                }
                if let etag = previousValue("etag"), fields["if-none-match"] == etag { status = 304 }
            }

            var headers: [(String, String)] = [
                ("Server-Base-Url", request.uri), ("Server-Request-Count", String(serverNumber)),
                ("Client-Request-Count", clientNumber.map(String.init) ?? "NaN"), ("Server-Now", String(now))
            ]
            var saved: [(String, String)] = []
            for field in step["response_headers"]?.array ?? [] {
                guard let parts = field.array, let name = parts.first?.string, parts.count > 1 else { continue }
                let value = Self.fixedUp(name: name, value: parts[1], serverNow: now, baseURL: request.uri, step: step)
                headers.append((name, value))
                if parts.count < 3 || parts[2].bool == true {
                    if let index = saved.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
                        saved[index].1 += ", " + value
                    } else {
                        saved.append((name, value))
                    }
                }
            }
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                headers.append(("Content-Type", "text/plain"))
            }
            run.records.append(
                Record(requestNumber: clientNumber, method: request.method, headers: fields, responseHeaders: saved))
            run.sent[number] = headers
            headers.append(
                (
                    "Request-Numbers",
                    run.records.map { $0.requestNumber.map(String.init) ?? "NaN" }.joined(separator: " ")
                ))
            runs[uuid] = run

            if step["disconnect"]?.bool == true { return TestResponse(status: status, behavior: .reset) }
            let body = [204, 304].contains(status) ? Data() : Data((step["response_body"]?.string ?? uuid).utf8)
            return TestResponse(status: status, headers: headers, body: body)
        }
    }

    /// A configured field's value as the suite's server writes it (`header-fixup.mjs`): a date
    /// given as a number of seconds from `serverNow`, a magic location under `baseURL`.
    static func fixedUp(
        name: String, value: JSONValue, serverNow: Int?, baseURL: String?, step: [String: JSONValue]
    )
        -> String
    {
        let lowercased = name.lowercased()
        if dateFields.contains(lowercased), let delta = value.int, let serverNow {
            let rfc850 = (step["rfc850date"]?.array ?? []).contains(.string(lowercased))
            return CacheDecisionTests.httpDate(serverNow + delta, rfc850: rfc850)
        }
        let text = value.string ?? value.int.map(String.init) ?? ""
        if locationFields.contains(lowercased), step["magic_locations"]?.bool == true, let baseURL {
            return text.isEmpty ? baseURL : "\(baseURL)/\(text)"
        }
        return text
    }
}
