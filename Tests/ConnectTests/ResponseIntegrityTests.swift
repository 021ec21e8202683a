import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// A response reaches only the request it answers, and no response crashes the process: the
/// defects libcurl 7.88 has where it acts on a response head before Connect judges it.
@Suite("Response integrity", .timeLimit(.minutes(3)))
struct ResponseIntegrityTests {
    /// libcurl 7.83 to 8.0 keep a pointer to the last header a handle stored across its
    /// transfers; a later response whose first header line is folded makes libcurl extend that
    /// freed header (a double free). The first request on a client meets it on a fresh handle,
    /// the later ones on handles that ran a transfer before.
    @Test func aFoldedFirstHeaderLineIsMalformedOnEveryRequest() async throws {
        let server = try RawServer { request, _ in
            if request.path == "/good" { return [.send(RawServer.response(headers: ["X-Some: header"], body: "good"))] }
            return [.send("HTTP/1.1 200 OK\r\n X: y\r\nContent-Length: 2\r\n\r\nok")]
        }
        defer { server.shutdown() }
        let connect = Connect()
        for _ in 0..<4 {
            #expect(try await connect.request(TestConnector(server, "/good")).value == Data("good".utf8))
            let failure = await connectError(connect.request(TestConnector(server, "/folded")))
            guard case .transport(let transport)? = failure else {
                Issue.record("expected a transport failure, got \(String(describing: failure))")
                continue
            }
            #expect(transport.kind == .malformedResponse, "\(transport)")
        }
    }

    /// An `HTTP/2` status line read from an HTTP/1.1 connection is a lie about the connection:
    /// libcurl 7.88 believes it and lets later requests share the HTTP/1.1 connections to the
    /// same origin as if they multiplexed, so they read each other's answers.
    @Test func anHTTP2StatusLineOnAnHTTP1ConnectionIsRefusedAndAnswersStayWithTheirRequests() async throws {
        let server = try RawServer { request, _ in
            if request.path == "/liar" { return [.send("HTTP/2 200\r\nContent-Length: 2\r\n\r\nok")] }
            // Slow enough that the requests overlap on several connections.
            if request.path.hasPrefix("/before") {
                return [.pause(.milliseconds(30)), .send(RawServer.response(body: request.path))]
            }
            return [.send(RawServer.response(body: request.path))]
        }
        defer { server.shutdown() }
        let connect = Connect()
        // A bound for a hang, not a measure: once the lie is seen no connection is shared, so the
        // 29 requests of a round wait for a few connections each, and under a loaded
        // ThreadSanitizer run one queued request waited out 10 s.
        let bound = Duration.seconds(120)
        for round in 0..<3 {
            // Requests in flight on other connections when the lie comes, and requests started
            // after it, while its connection is still open.
            let before = (0..<8).map {
                connect.request(TestConnector(server, "/before/\(round)/\($0)", timeout: bound))
            }
            let failure = await connectError(connect.request(TestConnector(server, "/liar", timeout: bound)))
            let after = (0..<20).map {
                connect.request(TestConnector(server, "/after/\(round)/\($0)", timeout: bound))
            }
            guard case .transport(let transport)? = failure else {
                Issue.record("expected a transport failure, got \(String(describing: failure))")
                continue
            }
            #expect(transport.kind == .malformedResponse, "\(transport)")
            for (index, future) in before.enumerated() {
                #expect(try await future.value == Data("/before/\(round)/\(index)".utf8))
            }
            for (index, future) in after.enumerated() {
                #expect(try await future.value == Data("/after/\(round)/\(index)".utf8))
            }
        }
    }

    /// Trailer fields come after the body and are not the head's (RFC 9110 §6.5.1): a trailer
    /// must not pass for a header a client acts on.
    @Test func trailersAreNotMergedIntoTheHeaders() async throws {
        let server = try RawServer { _, _ in
            [
                .send(
                    "HTTP/1.1 200 OK\r\nX-Head: 1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Checksum: 9\r\nContent-Type: text/evil\r\n\r\n"
                )
            ]
        }
        defer { server.shutdown() }
        let response = try await Connect().send(Request(url: server.baseURL.appendingPathComponent("trailers"))).value
        #expect(response.body == Data("hello".utf8))
        #expect(response.header("X-Head") == "1")
        #expect(response.header("X-Checksum") == nil)
        #expect(response.header("Content-Type") == nil)
    }
}
