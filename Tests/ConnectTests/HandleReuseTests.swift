import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One handle runs request after request of every method: what one leaves set (a POST, an
/// upload's size, HEAD's no-body, a custom method, a body reader) must not reach the next.
@Suite("Handle reuse across methods")
struct HandleReuseTests {
    @Test func eachRequestGoesOutAsItsOwnMethodAndBody() async throws {
        let server = try TestServer { request in .text("\(request.method) \(request.body.count)") }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 1
        let connect = Connect(configuration: configuration)
        let url = server.baseURL.appending(path: "r")
        let requests: [(HTTPMethod, RequestBody?, String)] = [
            (.post, .data(Data(repeating: 1, count: 300)), "POST 300"),
            (.get, nil, "GET 0"),
            (.put, .data(Data(repeating: 2, count: 2 << 20)), "PUT 2097152"),
            (.head, nil, ""),
            (.get, nil, "GET 0"),
            (.delete, nil, "DELETE 0"),
            (.post, nil, "POST 0"),
            (.patch, .data(Data("{}".utf8)), "PATCH 2"),
            (.get, nil, "GET 0"),
            (.options, nil, "OPTIONS 0"),
            (.get, nil, "GET 0")
        ]
        for (method, body, expected) in requests {
            var request = Request(method: method, url: url, body: body)
            request.allowsRetry = false
            let response = try await connect.send(request).value
            #expect(String(decoding: response.body, as: UTF8.self) == expected, "\(method)")
        }
        let recorded = server.requests.suffix(requests.count)
        #expect(recorded.map(\.method) == requests.map(\.0.rawValue))
        for (request, sent) in zip(recorded, requests) {
            #expect(request.body.count == sent.1?.count ?? 0, "\(request.method)")
            if sent.1 == nil, request.method == "GET" || request.method == "HEAD" {
                #expect(
                    request.header("Content-Length") == nil && request.header("Transfer-Encoding") == nil,
                    "\(request.method)")
            }
        }
        #expect(Set(recorded.map(\.connectionID)).count == 1)
    }

    /// Bodies in memory up to 64 KiB are copied into libcurl to go out with the request head:
    /// every method keeps its name, the bytes arrive whole (NUL bytes included), libcurl's form
    /// content type is never sent for them, and the next request on the handle carries none of it.
    @Test func smallBodiesGoOutWithTheHeadForEveryMethod() async throws {
        let server = try TestServer { request in TestResponse(body: request.body) }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 1
        let connect = Connect(configuration: configuration)
        let url = server.baseURL.appending(path: "echo")
        func bytes(_ count: Int) -> Data { cyclicBytes(count, times: 7, modulo: 256) }  // NULs every 256 bytes
        let limit = CurlTransfer.largestBodySentWithHead
        let requests: [(HTTPMethod, Data, String?)] = [
            (.post, bytes(1), nil),
            (.put, bytes(1000), nil),
            (.patch, bytes(limit), "application/merge-patch+json"),
            (.delete, bytes(3), nil),
            ("PROPFIND", bytes(10), "application/xml"),
            (.post, bytes(limit + 1), nil),  // read from the request's bytes, not copied
            (.post, Data(), nil)
        ]
        for (method, body, type) in requests {
            var request = Request(
                method: method, url: url, headers: type.map { [.contentType($0)] } ?? [], body: .data(body))
            request.allowsRetry = false
            let echoed = try await connect.send(request).value
            #expect(echoed.body == body, "\(method.rawValue) \(body.count)")
            let after = try await connect.send(Request(method: .get, url: url)).value
            #expect(after.body.isEmpty, "after \(method.rawValue) \(body.count)")
        }
        let recorded = server.requests
        #expect(recorded.count == requests.count * 2)
        for (index, sent) in requests.enumerated() {
            let request = recorded[index * 2]
            #expect(request.method == sent.0.rawValue)
            #expect(request.header("Content-Type") == sent.2, "\(request.method) \(sent.1.count)")
            #expect(request.header("Content-Length") == String(sent.1.count), "\(request.method)")
            let get = recorded[index * 2 + 1]
            #expect(
                get.method == "GET" && get.body.isEmpty && get.header("Content-Length") == nil
                    && get.header("Content-Type") == nil)
        }
        #expect(Set(recorded.map(\.connectionID)).count == 1)
    }

    /// On a libcurl that keeps a freed header across a handle's transfers (7.83 to 8.0), handles
    /// that ran h2c transfers go on to plain HTTP/1.1 transfers, which screen their heads (see
    /// ``HeadScreen``): an HTTP/1.1 answer whose first header line is folded, the one that makes
    /// such a libcurl free that header twice, is refused before libcurl stores it, however h2c
    /// and HTTP/1.1 requests of one client take turns.
    @Test func h2cAndScreenedTransfersTakeTurnsOnHandles() async throws {
        let nginx = try await NginxServer(sites: [.init(certificate: "server", http2: true, cleartext: true)])
        defer { nginx.shutdown() }
        let folded = try RawServer { _, _ in [.send("HTTP/1.1 200 OK\r\n X: y\r\nContent-Length: 2\r\n\r\nok")] }
        defer { folded.shutdown() }
        let connect = Connect()
        for round in 0..<4 {
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        var request = Request(url: nginx.url(0, "/h2c/\(round)/\(index)"))
                        request.httpVersion = .http2WithPriorKnowledge
                        return try await connect.send(request).value.httpVersion
                    }
                }
                for try await version in group { #expect(version == "2") }
            }
            do {
                _ = try await connect.send(Request(url: folded.baseURL.appending(path: "folded"))).value
                Issue.record("a folded first header line was accepted")
            } catch ConnectError.transport(let failure) {
                #expect(failure.kind == .malformedResponse)
            }
        }
    }

    /// One connection's handle runs plain request after plain request whose answers take the
    /// head screen (see ``HeadScreen``) through its cases: interim heads with fields, a header
    /// line longer than libcurl hands over at once, a body that holds head lines, a folded first
    /// header line in the only head or after an interim one. Every answer arrives whole and as
    /// sent, every folded first line is a malformed response, and the next request is answered
    /// as if none of it had happened, on any libcurl.
    @Test func plainRequestsOnOneHandleGetTheirAnswersWhateverTheHeadsBefore() async throws {
        let long = String(repeating: "v", count: 40_000)
        let headLikeBody = "HTTP/1.1 200 OK\r\n X: y\r\n\r\n"
        let server = try RawServer { request, _ in
            switch request.path {
            case "/interim":
                return [
                    .send("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"),
                    .send(RawServer.response(headers: ["X-A: 1"], body: "interim"))
                ]
            case "/long": return [.send(RawServer.response(headers: ["X-Long: \(long)"], body: "long"))]
            case "/head-like-body": return [.send(RawServer.response(body: headLikeBody))]
            case "/folded": return [.send("HTTP/1.1 200 OK\r\n X: y\r\nContent-Length: 2\r\n\r\nok")]
            case "/folded-after-interim":
                return [
                    .send(
                        "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n\tX: y\r\nContent-Length: 2\r\n\r\nok"
                    )
                ]
            default:
                return [
                    .send(RawServer.response(headers: ["X-Path: \(request.path)"], body: "plain \(request.method)"))
                ]
            }
        }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 1
        let connect = Connect(configuration: configuration)
        func send(_ path: String, _ method: HTTPMethod = .get, body: Data? = nil) async throws -> Response {
            var request = Request(
                method: method, url: server.baseURL.appending(path: path), body: body.map { .data($0) })
            request.allowsRetry = false
            return try await connect.send(request).value
        }
        for round in 0..<3 {
            let interim = try await send("interim")
            #expect(
                String(decoding: interim.body, as: UTF8.self) == "interim" && interim.header("X-A") == "1", "\(round)")
            let plain = try await send("plain")
            #expect(String(decoding: plain.body, as: UTF8.self) == "plain GET" && plain.header("X-Path") == "/plain")
            let longHeader = try await send("long")
            #expect(longHeader.header("X-Long") == long && String(decoding: longHeader.body, as: UTF8.self) == "long")
            let posted = try await send("posted", .post, body: Data("x".utf8))
            #expect(String(decoding: posted.body, as: UTF8.self) == "plain POST")
            let bodyLikeHead = try await send("head-like-body")
            #expect(String(decoding: bodyLikeHead.body, as: UTF8.self) == headLikeBody)
            for path in ["folded", "folded-after-interim"] {
                let failure = await connectError(connect.send(Request(url: server.baseURL.appending(path: path))))
                guard case .transport(let transport)? = failure else {
                    Issue.record("\(path): \(String(describing: failure))")
                    continue
                }
                #expect(transport.kind == .malformedResponse, "\(path): \(transport)")
                let head = try await send("after-\(path)", .head)
                #expect(head.statusCode == 200 && head.body.isEmpty && head.header("X-Path") == "/after-\(path)")
            }
        }
        #expect(server.requests.count == 3 * 9)
    }

    @Test(arguments: [
        (HTTPVersionPolicy.Choice.http2WithPriorKnowledge, false, false, false, true),
        (.http2WithPriorKnowledge, true, false, false, false),  // https: ALPN may choose HTTP/1.1
        (.http2WithPriorKnowledge, false, true, false, false),  // a proxy answers over HTTP/1.1
        (.http2WithPriorKnowledge, false, false, true, false),  // a WebSocket handshake is HTTP/1.1
        (.automatic, false, false, false, false), (.http1Only, false, false, false, false)
    ])
    func answersReadAsHTTP2FramesAlone(
        _ version: HTTPVersionPolicy.Choice, _ isHTTPS: Bool, _ throughProxy: Bool, _ opensWebSocket: Bool,
        _ expected: Bool
    ) {
        #expect(
            LibcurlDefects.answersComeAsHTTP2FramesOnly(
                version, isHTTPS: isHTTPS, throughProxy: throughProxy, opensWebSocket: opensWebSocket) == expected)
    }
}
