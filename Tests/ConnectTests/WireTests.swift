import CZlib
import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect
@testable import ConnectWire

/// What reaches a request when the server breaks HTTP/1.1 on the wire: every response reaches
/// only the request it answers, nothing is sent twice behind the caller's back, and a broken
/// response is a transport failure after the request was sent.
@Suite("Wire correctness", .timeLimit(.minutes(3)))
struct WireTests {
    /// A gzip stream of "The quick brown fox jumps over the lazy dog. " × 40 (1,800 bytes).
    static let gzipped = Data(
        base64Encoded:
            "H4sIAAAAAAACAwvJSFUoLM1MzlZIKsovz1NIy69QyCrNLShWyC9LLVIoAUrnJFZVKqTkp+sphIwqHlU8qnhU8ajiUcXDSzEA5sOVZAgHAAA="
    )!
    static let plain = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 40)

    /// A server that answers every request with "answer to" its path, and sends its first
    /// connection's first answer followed, 20 ms later, by a second response nobody asked for;
    /// it opens `straySent` once that response went out.
    static func strayResponseServer(opening straySent: TestGate) throws -> RawServer {
        try RawServer { request, index in
            guard request.connectionID == 1, index == 0 else {
                return [.send(RawServer.response(body: "answer to \(request.path)"))]
            }
            return [
                .send(RawServer.response(body: "answer to \(request.path)")), .pause(.milliseconds(20)),
                .send(RawServer.response(body: "stray")), .open(straySent)
            ]
        }
    }

    /// A server that answers every request with "answer to" its path, and sends its first
    /// connection's first answer followed by a second response nobody asked for; `connect` has
    /// made that first request, and the stray response is waiting on the idle connection.
    static func serverWithAStrayResponse(_ connect: Connect) async throws -> RawServer {
        let straySent = TestGate()
        let server = try Self.strayResponseServer(opening: straySent)
        #expect(try await connect.request(TestConnector(server, "/first")).value == Data("answer to /first".utf8))
        #expect(await eventually { straySent.isOpen }, "the stray response went out")
        return server
    }

    @Test func aStrayResponseOnAnIdleConnectionNeverReachesTheNextRequest() async throws {
        let connect = Connect()
        let server = try await Self.serverWithAStrayResponse(connect)
        defer { server.shutdown() }
        #expect(try await connect.request(TestConnector(server, "/second")).value == Data("answer to /second".utf8))
        #expect(try await connect.request(TestConnector(server, "/third")).value == Data("answer to /third".utf8))
        #expect(server.connectionCount == 2)
    }

    /// The stray response arrives while the transfer thread is busy (an app's callback holds
    /// it), so no wait of the loop's sees it: the look at the epoll set made before the next
    /// request takes the idle connection finds it there.
    @Test func aStrayResponseThatArrivesWhileTheLoopIsBusyNeverReachesTheNextRequest() async throws {
        let straySent = TestGate()
        let server = try Self.strayResponseServer(opening: straySent)
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.runsCallbacksOnTransferThread = true
        let connect = Connect(configuration: configuration)
        let second: Future<Data> = try await withCheckedThrowingContinuation { continuation in
            connect.request(TestConnector(server, "/first")).observe { result in
                // On the transfer thread, held until the stray response has reached the socket.
                for _ in 0..<1_000 where !straySent.isOpen { usleep(10_000) }
                usleep(50_000)
                continuation.resume(with: result.map { _ in connect.request(TestConnector(server, "/second")) })
            }
        }
        #expect(straySent.isOpen)
        #expect(try await second.value == Data("answer to /second".utf8))
        #expect(server.connectionCount == 2)
    }

    /// Every kind of request body, for a request that starts over on a fresh connection.
    enum RestartedBody: String, CaseIterable, Sendable {
        case smallData, largeData, file, multipart, oneTimeStream, replayableStream

        static let bytes = cyclicBytes(150_000, times: 31)

        func body() throws -> RequestBody {
            switch self {
            case .smallData: return .data(Data("{\"id\": 7}".utf8), contentType: "application/json")
            case .largeData: return .data(Self.bytes)
            case .file: return try .file(temporaryFile(Self.bytes))
            case .multipart:
                return .multipart([
                    .field("album", "Holidays"), .field("photo", data: Self.bytes, mimeType: .octetStream)
                ])
            case .oneTimeStream:
                return .stream(
                    AsyncStream {
                        $0.yield(Self.bytes)
                        $0.finish()
                    }, count: Self.bytes.count)
            case .replayableStream:
                return .stream(count: Self.bytes.count) {
                    AsyncStream {
                        $0.yield(Self.bytes)
                        $0.finish()
                    }
                }
            }
        }
    }

    /// A request that finds unread bytes on the connection libcurl chose starts over on a fresh
    /// one, on its handle reset and set up again: its body, of every kind, arrives whole and once.
    @Test(arguments: RestartedBody.allCases)
    func aRequestStartedOverAfterAStrayResponseSendsItsBodyOnce(_ kind: RestartedBody) async throws {
        let connect = Connect()
        let server = try await Self.serverWithAStrayResponse(connect)
        defer { server.shutdown() }
        let body = try kind.body()
        defer { if case .file(let url, _) = body.content { try? FileManager.default.removeItem(at: url) } }
        let request = Request(method: .post, url: server.baseURL.appendingPathComponent("upload"), body: body)
        #expect(try await connect.send(request).value.body == Data("answer to /upload".utf8))
        let uploads = server.requests.filter { $0.path == "/upload" }
        #expect(uploads.count == 1)
        #expect(uploads.first?.connectionID == 2)
        let received = try #require(uploads.first?.body)
        switch kind {
        case .smallData: #expect(received == Data("{\"id\": 7}".utf8))
        case .multipart:
            let parts = try #require(parseMultipart(received, contentType: uploads.first?.header("Content-Type")))
            #expect(parts.map(\.name) == ["album", "photo"])
            #expect(parts.last?.body == RestartedBody.bytes)
        default: #expect(received == RestartedBody.bytes)
        }
    }

    @Test func aPostIsNotSentAgainWhenAReusedConnectionClosesUnanswered() async throws {
        let server = try RawServer { request, index in
            // The first request on each connection is answered; the second is read and dropped.
            index == 0 ? [.send(RawServer.response(body: "ok"))] : [.close]
        }
        defer { server.shutdown() }
        let connect = Connect()
        #expect(try await connect.request(TestConnector(server, "/warm-up")).value == Data("ok".utf8))
        await expectFailureAfterSending(
            connect.request(
                TestConnector(
                    server, "/order", method: .post,
                    parameters: HTTPTask.requestData(Data("{}".utf8), contentType: "application/json"))))
        #expect(server.requests.filter { $0.path == "/order" }.count == 1)
    }

    @Test func anIdempotentRequestStillGoesOutAgainOnAFreshConnection() async throws {
        let server = try RawServer { request, index in
            index == 0 ? [.send(RawServer.response(body: "answer to \(request.path)"))] : [.close]
        }
        defer { server.shutdown() }
        let connect = Connect()
        #expect(try await connect.request(TestConnector(server, "/warm-up")).value == Data("answer to /warm-up".utf8))
        #expect(try await connect.request(TestConnector(server, "/again")).value == Data("answer to /again".utf8))
    }

    @Test func aPostOptedIntoRetriesGoesOutAgainOnAFreshConnection() async throws {
        let server = try RawServer { request, index in
            index == 0 ? [.send(RawServer.response(body: "answer to \(request.path)"))] : [.close]
        }
        defer { server.shutdown() }
        let connect = Connect()
        #expect(try await connect.request(TestConnector(server, "/warm-up")).value == Data("answer to /warm-up".utf8))
        var request = Request(
            method: .post, url: server.baseURL.appendingPathComponent("idempotent-post"), body: .data(Data("x".utf8)))
        request.allowsRetry = true
        #expect(try await connect.send(request).value.body == Data("answer to /idempotent-post".utf8))
    }

    @Test(arguments: [
        "garbage\r\n\r\n",
        "HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/9 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1200 OK\r\nContent-Length: 0\r\n\r\n",
        "<html>an HTTP/0.9 answer</html>"
    ])
    func aMalformedStatusLineIsAMalformedResponse(reply: String) async throws {
        let server = try RawServer { _, _ in [.send(reply), .close] }
        defer { server.shutdown() }
        await expectFailureAfterSending(Connect().request(TestConnector(server, "/")), reply.debugDescription)
    }

    @Test func aMalformedResponseIsRetriedLikeAReset() async throws {
        let server = try RawServer { request, _ in
            request.connectionID == 1 || request.path == "/once"
                ? [.send("HTTP/1.1 abc OK\r\n\r\n"), .close] : [.send(RawServer.response(body: "second"))]
        }
        defer { server.shutdown() }
        let connect = Connect(
            middleware: ConnectMiddleware(retrier: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10))))
        #expect(try await connect.request(TestConnector(server, "/")).value == Data("second".utf8))
        // A POST, which may not be repeated, is not.
        let post = connect.request(TestConnector(server, "/once", method: .post))
        await expectFailureAfterSending(post)
        #expect(server.requests.filter { $0.path == "/once" }.count == 1)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: text/pl"
    ])
    func aResponseCutOffInItsHeadIsTruncated(reply: String) async throws {
        let server = try RawServer { _, _ in [.send(reply), .close] }
        defer { server.shutdown() }
        await expectFailureAfterSending(Connect().request(TestConnector(server, "/")), reply.debugDescription)
    }

    @Test func aCompleteGzipBodyIsInflated() async throws {
        let server = try RawServer { _, _ in
            [
                .send(
                    Data(
                        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(Self.gzipped.count)\r\n\r\n"
                            .utf8) + Self.gzipped)
            ]
        }
        defer { server.shutdown() }
        let response = try await Connect().response(TestConnector(server, "/")).value
        #expect(response.body == Data(Self.plain.utf8))
    }

    @Test func aTruncatedGzipBodyFails() async throws {
        let half = Self.gzipped.prefix(Self.gzipped.count / 2)
        let server = try RawServer { _, _ in
            [
                .send(
                    Data("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(half.count)\r\n\r\n".utf8)
                        + half)
            ]
        }
        defer { server.shutdown() }
        await expectFailureAfterSending(Connect().request(TestConnector(server, "/")))
    }

    @Test(arguments: [
        "Content-Length: 2\r\nContent-Length: 3",
        "Content-Length: 2, 3",
        "Content-Length: 99999999999999999999999",
        "Content-Length: -1",
        "Content-Length: 0x10"
    ])
    func conflictingOrUnreadableContentLengthsAreRefused(headers: String) async throws {
        let server = try RawServer { _, _ in [.send("HTTP/1.1 200 OK\r\n\(headers)\r\n\r\nabc"), .close] }
        defer { server.shutdown() }
        await expectFailureAfterSending(Connect().request(TestConnector(server, "/")), headers.debugDescription)
    }

    @Test func repeatedEqualContentLengthsAreOne() async throws {
        let server = try RawServer { _, _ in
            [.send("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc")]
        }
        defer { server.shutdown() }
        #expect(try await Connect().request(TestConnector(server, "/")).value == Data("abc".utf8))
    }

    @Test func anObsFoldContinuationIsJoinedWithASpace() async throws {
        let server = try RawServer { _, _ in
            [.send("HTTP/1.1 200 OK\r\nX-Folded: first\r\n   second\r\n\tthird\r\nContent-Length: 2\r\n\r\nok")]
        }
        defer { server.shutdown() }
        let response = try await Connect().response(TestConnector(server, "/")).value
        #expect(response.header("X-Folded") == "first second third")
        #expect(response.body == Data("ok".utf8))
    }

    @Test func aPostWithoutABodyClaimsNoContentType() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        _ = try await sharedConnect.request(TestConnector(server, "/empty", method: .post)).value
        _ = try await sharedConnect.request(
            TestConnector(server, "/plain", method: .post, parameters: HTTPTask.requestPlain)
        ).value
        _ = try await sharedConnect.request(
            TestConnector(server, "/typed", method: .post, headers: [.contentType("text/plain")])
        ).value
        let requests = server.requests
        #expect(requests[0].header("Content-Type") == nil)
        #expect(requests[0].header("Content-Length") == "0")
        #expect(requests[1].header("Content-Type") == nil)
        #expect(requests[2].header("Content-Type") == "text/plain")
    }

    @Test func aBodyWithoutAContentTypeIsNotCalledAForm() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        _ = try await sharedConnect.send(Request(method: .post, url: server.baseURL, body: .data(Data("raw".utf8))))
            .value
        #expect(server.requests[0].header("Content-Type") == nil)
        #expect(server.requests[0].bodyText == "raw")
    }
}

/// Expects `future` to fail below HTTP after its request was sent: what a retrier must see to
/// treat the failure like a reset.
func expectFailureAfterSending<Value>(
    _ future: Future<Value>, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation
) async {
    let error = await connectError(future)
    guard case .transport(let failure)? = error else {
        Issue.record(
            "expected a transport failure \(what), got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    #expect(failure.requestSent, sourceLocation: sourceLocation)
}

@Suite("Compressed bodies", .timeLimit(.minutes(3)))
struct CompressedBodyTests {
    /// `original` as a zlib stream (`Content-Encoding: deflate`).
    static func deflated(_ original: Data) -> Data {
        var compressed = Data(count: Int(compressBound(uLong(original.count))))
        var length = uLongf(compressed.count)
        _ = compressed.withUnsafeMutableBytes { target in
            original.withUnsafeBytes { source in
                compress2(
                    target.baseAddress!.assumingMemoryBound(to: Bytef.self), &length,
                    source.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(original.count), 6)
            }
        }
        compressed.count = Int(length)
        return compressed
    }

    /// The transport's decoder for a body that is chunked, then gzipped, then deflated.
    @Test func bodyDecoderUndoesChunkedThenEachContentCoding() throws {
        let layered = Self.deflated(WireTests.gzipped)
        let wire = Data("\(String(layered.count, radix: 16))\r\n".utf8) + layered + Data("\r\n0\r\n\r\n".utf8)
        for pieceSize in [1, 7, wire.count] {
            let decoder = try BodyDecoder(chunked: true, codings: [.gzip, .deflate])
            var body = Data()
            for start in stride(from: 0, to: wire.count, by: pieceSize) {
                Data(wire[start..<min(start + pieceSize, wire.count)]).withUnsafeBytes { input in
                    #expect(throws: Never.self) {
                        _ = try decoder.decode(input) { decoded in
                            body.append(contentsOf: decoded.bindMemory(to: UInt8.self))
                            return true
                        }
                    }
                }
            }
            #expect(String(decoding: body, as: UTF8.self) == WireTests.plain, "pieces of \(pieceSize)")
            #expect(decoder.isComplete)
        }
    }

    @Test func aSlowReaderOfACompressedStreamGetsEveryByteOnce() async throws {
        let original = Data((0..<200_000).map { "event \($0)\n" }.joined().utf8)
        let compressed = Self.deflated(original)
        let server = try TestServer { _ in TestResponse(headers: [("Content-Encoding", "deflate")], body: compressed) }
        defer { server.shutdown() }
        let stream = sharedConnect.stream(TestConnector(server, "/feed"), bufferSize: 16 << 10)
        var received = Data()
        for try await chunk in stream {
            received += chunk
            if received.count < 256 << 10 { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(received.count == original.count)
        #expect(received == original)
    }

    @Test func aCompressedBodyOverTheLimitFailsAsTooLarge() async throws {
        // 64 MiB of zeros: a few KiB on the wire.
        let compressed = Self.deflated(Data(count: 64 << 20))
        let server = try TestServer { _ in TestResponse(headers: [("Content-Encoding", "deflate")], body: compressed) }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumResponseBodySize = 1 << 20
        let error = await connectError(Connect(configuration: configuration).request(TestConnector(server, "/bomb")))
        #expect(error == .responseTooLarge(limit: 1 << 20))
    }

    @Test func aCompressedDownloadToAFileIsDecoded() async throws {
        let original = Data((0..<50_000).map { "row \($0)\n" }.joined().utf8)
        let compressed = Self.deflated(original)
        let server = try TestServer { _ in TestResponse(headers: [("Content-Encoding", "deflate")], body: compressed) }
        defer { server.shutdown() }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "connect-deflated-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let file = try await sharedConnect.download(TestConnector(server, "/file"), to: destination).value
        #expect(try Data(contentsOf: file.location) == original)
    }
}
