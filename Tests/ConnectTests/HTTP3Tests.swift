import ConnectFutures
import ConnectTestServer
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import Connect

/// HTTP/3 against hypercorn's QUIC (aioquic), where the libcurl the tests run on speaks it
/// (`make test-h3`), and what asking for it does on a libcurl that does not (`make test`).
@Suite(
    "HTTP/3", .timeLimit(.minutes(3)),
    .enabled(if: HypercornServer.isInstalled || ProcessInfo.processInfo.environment["CI"] != nil))
struct HTTP3Tests {
    static var libcurlHasHTTP3: Bool { LibcurlFeatures.running.hasHTTP3 }

    static func client(_ version: HTTPVersionPolicy) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        configuration.httpVersion = version
        return Connect(configuration: configuration)
    }

    struct ProblemCase: Sendable, CustomStringConvertible {
        let name: String
        let policy: HTTPVersionPolicy
        let isHTTPS: Bool
        let hasHTTP3: Bool
        /// A part of the problem's message; `nil` for none.
        let problem: String?
        var description: String { name }
    }

    @Test(arguments: [
        ProblemCase(
            name: "HTTP/3 only, https, a libcurl with it", policy: .http3Only, isHTTPS: true, hasHTTP3: true,
            problem: nil),
        ProblemCase(
            name: "HTTP/3 only, http", policy: .http3Only, isHTTPS: false, hasHTTP3: true, problem: "needs an https URL"
        ),
        ProblemCase(
            name: "HTTP/3 only, a libcurl without it", policy: .http3Only, isHTTPS: true, hasHTTP3: false,
            problem: "has no HTTP/3 (libcurl/7.88.1 OpenSSL/3.0.16)"),
        ProblemCase(
            name: "HTTP/3 first, a libcurl without it", policy: .http3, isHTTPS: true, hasHTTP3: false, problem: nil),
        ProblemCase(name: "HTTP/3 first, http", policy: .http3, isHTTPS: false, hasHTTP3: true, problem: nil),
        ProblemCase(name: "automatic", policy: .automatic, isHTTPS: true, hasHTTP3: false, problem: nil)
    ])
    func whatCannotAskForHTTP3(_ row: ProblemCase) {
        let problem = row.policy.problem(
            isHTTPS: row.isHTTPS, libcurlHasHTTP3: row.hasHTTP3, libcurl: "libcurl/7.88.1 OpenSSL/3.0.16")
        if let expected = row.problem {
            #expect(problem?.contains(expected) == true, "\(String(describing: problem))")
        } else {
            #expect(problem == nil)
        }
    }

    /// On a libcurl without HTTP/3, HTTP/3 only fails before anything is sent, naming the
    /// libcurl; HTTP/3 first answers over HTTP/2. On an http URL, HTTP/3 only fails whatever the
    /// libcurl.
    @Test func whereHTTP3CannotBeSpoken() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let plain = try TestServer { _ in .text("plain") }
        defer { plain.shutdown() }
        let refusal = await connectError(Self.client(.http3Only).send(Request(url: plain.baseURL)))
        guard case .invalidRequest(let message)? = refusal else {
            Issue.record("expected invalidRequest, got \(String(describing: refusal))")
            return
        }
        #expect(message.contains("needs an https URL") && plain.requests.isEmpty)
        guard !Self.libcurlHasHTTP3 else { return }

        let unsupported = await connectError(Self.client(.http3Only).send(Request(url: server.url)))
        guard case .invalidRequest(let message)? = unsupported else {
            Issue.record("expected invalidRequest, got \(String(describing: unsupported))")
            return
        }
        #expect(message.contains(LibcurlFeatures.running.description) && message.contains("ngtcp2"))
        let fallback = try await Self.client(.http3).send(Request(url: server.url.appendingPathComponent("first")))
            .value
        #expect(fallback.httpVersion == "2")
    }

    /// A WebSocket opens with an HTTP/1.1 upgrade (libcurl has WebSockets over neither HTTP/2 nor
    /// HTTP/3): on a client that allows QUIC only it fails before anything is sent, saying so; a
    /// request of its own that allows HTTP/1.1 opens.
    @Test func aWebSocketSaysItCannotOpenOverHTTP3() async throws {
        let server = try WebSocketServer()
        defer { server.shutdown() }
        let connect = Self.client(.http3Only)
        let url = server.webSocketURL.appendingPathComponent("chat")
        var refusal: ConnectError?
        do {
            _ = try await connect.webSocket(Request(url: url))
        } catch {
            refusal = error as? ConnectError
        }
        guard case .invalidRequest(let message)? = refusal else {
            Issue.record("expected invalidRequest, got \(String(describing: refusal))")
            return
        }
        #expect(message.contains("RFC 9220") && message.contains(".http3Only"))
        #expect(server.received.isEmpty)
        let socket = try await connect.webSocket(Request(url: url, httpVersion: .automatic))
        try await socket.send("over HTTP/1.1")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("over HTTP/1.1"))
        _ = try await socket.close(code: 1000, reason: "done")
    }

    /// GETs and a POST with a body over QUIC, and twenty requests at once on one connection.
    @Test(.enabled(if: libcurlHasHTTP3)) func requestsGoOverQUIC() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let connect = Self.client(.http3Only)
        let response = try await connect.send(Request(url: server.url.appendingPathComponent("get"))).value
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(response.httpVersion == "3" && echo.version == "3" && echo.path == "/get")

        let body = cyclicBytes(100_000)
        let posted = try await connect.send(
            Request(method: .post, url: server.url.appendingPathComponent("post"), body: .data(body))
        ).value
        let postEcho = try JSONDecoder().decode(Echo.self, from: posted.body)
        #expect(postEcho.method == "POST" && postEcho.length == body.count && postEcho.version == "3")

        let echoes = try await withThrowingTaskGroup(of: Echo.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let answer = try await connect.send(
                        Request(url: server.url.appendingPathComponent("many/\(index)"))
                    )
                    .value
                    return try JSONDecoder().decode(Echo.self, from: answer.body)
                }
            }
            var echoes: [Echo] = []
            for try await echo in group { echoes.append(echo) }
            return echoes
        }
        #expect(echoes.count == 20 && echoes.allSatisfy { $0.version == "3" })
        #expect(Set(echoes.map(\.clientPort)).count == 1, "one QUIC connection: \(Set(echoes.map(\.clientPort)))")
    }

    /// HTTP/3 first against a server without QUIC falls back to HTTP/2 over TCP; against one with
    /// QUIC it answers over HTTP/3.
    @Test(.enabled(if: libcurlHasHTTP3)) func http3FirstFallsBackWhereThereIsNoQUIC() async throws {
        let tcpOnly = try await HypercornServer(tls: true)
        defer { tcpOnly.shutdown() }
        let connect = Self.client(.http3)
        let fallback = try await connect.send(Request(url: tcpOnly.url.appendingPathComponent("a"))).value
        #expect(fallback.httpVersion == "2")

        let quic = try await HypercornServer(tls: true, quic: true)
        defer { quic.shutdown() }
        let answer = try await connect.send(Request(url: quic.url.appendingPathComponent("b"))).value
        #expect(answer.httpVersion == "3")
    }

    /// A certificate the client does not trust fails the QUIC handshake as it fails TLS over TCP.
    @Test(.enabled(if: libcurlHasHTTP3)) func anUntrustedCertificateIsRefused() async throws {
        let server = try await HypercornServer(tls: true, quic: true, certificate: "expired")
        defer { server.shutdown() }
        let error = await connectError(Self.client(.http3Only).send(Request(url: server.url)))
        guard case .tls? = error else {
            Issue.record("expected a TLS failure, got \(String(describing: error))")
            return
        }
    }
}

/// `Alt-Svc`: an origin that advertises HTTP/3 is reached over it later, the alternatives kept in
/// a file serve the next client, and one that does not answer falls back and is left alone.
extension HTTP3Tests {
    static func client(alternatives: AlternativeServices, connectTimeout: Duration = .seconds(10)) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        configuration.alternativeServices = alternatives
        configuration.connectTimeout = connectTimeout
        return Connect(configuration: configuration)
    }

    /// hypercorn on TCP, its QUIC on another port it advertises (`h3=":<port>"; ma=3600`): the
    /// first request goes over HTTP/2 and the next over HTTP/3 to that port; a client that
    /// ignores `Alt-Svc`, or asks for HTTP/1.1, stays where it was.
    @Test(.enabled(if: libcurlHasHTTP3)) func anAdvertisedAlternativeCarriesLaterRequests() async throws {
        let server = try await HypercornServer(tls: true, quic: true, quicOnItsOwnPort: true)
        defer { server.shutdown() }
        let connect = Self.client(alternatives: .remembered)
        let first = try await connect.send(Request(url: server.url.appendingPathComponent("first"))).value
        #expect(first.httpVersion == "2" && first.headers.value(for: "Alt-Svc")?.contains("h3=") == true)
        let second = try await connect.send(Request(url: server.url.appendingPathComponent("second"))).value
        let echo = try JSONDecoder().decode(Echo.self, from: second.body)
        #expect(second.httpVersion == "3" && echo.version == "3" && echo.path == "/second")
        let posted = try await connect.send(
            Request(method: .post, url: server.url.appendingPathComponent("post"), body: .data(cyclicBytes(50_000)))
        ).value
        let postEcho = try JSONDecoder().decode(Echo.self, from: posted.body)
        #expect(posted.httpVersion == "3" && postEcho.length == 50_000)
        let http1 = try await connect.send(
            Request(url: server.url.appendingPathComponent("http1"), httpVersion: .http1Only)
        ).value
        #expect(http1.httpVersion == "1.1")

        let ignoring = Self.client(alternatives: .ignored)
        for path in ["a", "b"] {
            let answer = try await ignoring.send(Request(url: server.url.appendingPathComponent(path))).value
            #expect(answer.httpVersion == "2")
        }
    }

    /// The alternatives kept in a file (curl's format) send the next client's first request over
    /// HTTP/3.
    @Test(.enabled(if: libcurlHasHTTP3)) func persistedAlternativesServeTheNextClient() async throws {
        let server = try await HypercornServer(tls: true, quic: true, quicOnItsOwnPort: true)
        defer { server.shutdown() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alt-svc-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        let first = try await Self.client(alternatives: .persisted(at: file.path)).send(Request(url: server.url)).value
        #expect(first.httpVersion == "2")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("h2 127.0.0.1 \(server.port) h3 127.0.0.1 "), "\(text)")

        let next = Self.client(alternatives: .persisted(at: file.path))
        let answer = try await next.send(Request(url: server.url.appendingPathComponent("next"))).value
        #expect(answer.httpVersion == "3")
    }

    /// An alternative on a UDP port that reads and never answers: the request that tries it
    /// falls back to the origin after `fallbackAfter` (far below the connect timeout) and gets
    /// its answer over HTTP/2; the alternative is then left alone while it holds, though the
    /// origin keeps advertising it.
    @Test(.enabled(if: libcurlHasHTTP3)) func aBrokenAlternativeFallsBackAndIsNotTriedAgain() async throws {
        let server = try await HypercornServer(tls: true)
        defer { server.shutdown() }
        let blackHole = try UDPBlackHole()
        var alternatives = AlternativeServices.remembered
        alternatives.fallbackAfter = .milliseconds(500)
        let connect = Self.client(alternatives: alternatives, connectTimeout: .seconds(60))
        let advertising = URL(
            string: "\(server.url.absoluteString)/alt-svc?h3%3D%22%3A\(blackHole.port)%22%3B%20ma%3D600")!
        let first = try await connect.send(Request(url: advertising)).value
        #expect(first.httpVersion == "2" && blackHole.datagrams() == 0)

        let clock = ContinuousClock()
        let start = clock.now
        let fallback = try await connect.send(Request(url: advertising)).value
        let elapsed = clock.now - start
        let fallbackEcho = try JSONDecoder().decode(Echo.self, from: fallback.body)
        #expect(fallback.httpVersion == "2" && fallbackEcho.version == "2")
        #expect(elapsed < .seconds(30), "the fallback took \(elapsed): the connect timeout, not fallbackAfter")
        let tried = blackHole.datagrams()
        #expect(tried > 0, "the alternative was tried")

        for _ in 0..<3 {
            let answer = try await connect.send(Request(url: advertising)).value
            #expect(answer.httpVersion == "2")
        }
        #expect(blackHole.datagrams() == 0, "the broken alternative was tried again")
    }
}

/// A UDP socket on 127.0.0.1 that reads datagrams and never answers: a QUIC server that cannot
/// be reached, as where UDP is blocked.
final class UDPBlackHole: @unchecked Sendable {
    private let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// The datagrams that arrived since the last call, read and counted.
    func datagrams() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 { count += 1 }
        return count
    }
}

/// Over QUIC what the HTTP/2 tests cover: streamed bodies both ways, a large download, Server-Sent
/// Events, and a cancelled request.
extension HTTP3Tests {
    /// A streamed response's head says `"3"`, and its body comes whole; a 20 MB body into memory;
    /// a request body streamed in pieces of unknown total.
    @Test(.enabled(if: libcurlHasHTTP3)) func bodiesStreamBothWaysOverQUIC() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let connect = Self.client(.http3Only)
        let stream = connect.stream(TestConnector(url: server.url, endpoint: "/bytes/3000000"))
        let head = try await stream.response
        #expect(head.httpVersion == "3" && head.statusCode == 200)
        var streamed = Data()
        for try await chunk in stream { streamed += chunk }
        #expect(streamed == cyclicBytes(3_000_000))

        let large = try await connect.send(Request(url: server.url.appendingPathComponent("bytes/20000000"))).value
        #expect(large.httpVersion == "3" && large.body == cyclicBytes(20_000_000))

        let pieces = (0..<50).map { cyclicBytes(10_000, plus: $0) }
        let upload = try await connect.send(
            Request(
                method: .post, url: server.url.appendingPathComponent("upload"),
                body: .stream(
                    AsyncStream { continuation in
                        for piece in pieces { continuation.yield(piece) }
                        continuation.finish()
                    }))
        ).value
        let echo = try JSONDecoder().decode(Echo.self, from: upload.body)
        #expect(upload.httpVersion == "3" && echo.version == "3" && echo.length == 500_000)
    }

    @Test(.enabled(if: libcurlHasHTTP3)) func serverSentEventsArriveOverQUIC() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let events = Self.client(.http3Only).events(
            TestConnector(url: server.url, endpoint: "/events/100"), reconnection: .never)
        var data: [String] = []
        for try await event in events { data.append(event.data) }
        #expect(data == (0..<100).map(String.init))
    }

    /// A download cancelled halfway fails as cancelled; the client's next request is answered
    /// over QUIC.
    @Test(.enabled(if: libcurlHasHTTP3)) func aCancelledRequestOverQUIC() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let connect = Self.client(.http3Only)
        let stream = connect.stream(TestConnector(url: server.url, endpoint: "/bytes/500000000"), bufferSize: 64 << 10)
        #expect(try await stream.response.httpVersion == "3")
        let (received, failure) = await Self.read(stream) { stream.cancel() }
        #expect(failure as? ConnectError == .cancelled, "\(String(describing: failure))")
        #expect(received < 500_000_000)
        let next = try await connect.send(Request(url: server.url.appendingPathComponent("after"))).value
        #expect(next.httpVersion == "3")
    }

    /// The middleware's adapter, the cache and tracing see a request over QUIC as any other: the
    /// adapter's header reaches the server, the second request is the cache's, and the span
    /// names version 3.
    @Test(.enabled(if: libcurlHasHTTP3)) func middlewareCacheAndTracingOverQUIC() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        configuration.httpVersion = .http3Only
        configuration.tracer = tracer
        configuration.cache = ResponseCache(memoryCapacity: 1 << 20)
        let connect = Connect(
            middleware: ConnectMiddleware(adapters: [
                HeaderAdapter(header: HTTPHeader(name: "X-Marker", value: "adapted"))
            ]),
            configuration: configuration)
        let first = try await connect.response(TestConnector(url: server.url, endpoint: "/cached")).value
        let echo = try JSONDecoder().decode(Echo.self, from: first.body)
        #expect(first.httpVersion == "3" && echo.version == "3" && echo.marker == "adapted")
        let second = try await connect.response(TestConnector(url: server.url, endpoint: "/cached")).value
        #expect(second.cacheStatus == .hit && second.body == first.body)
        let spans = tracer.finishedSpans
        #expect(spans.map { $0.attributes["connect.cache.status"]?.toSpanAttribute() } == ["miss", "hit"])
        #expect(spans.first?.attributes["network.protocol.version"]?.toSpanAttribute() == "3")
    }

    /// A server that goes away in the middle of a download over QUIC fails the download with a
    /// typed error, and the next request to it fails too, within its timeout, never hangs.
    @Test(.enabled(if: libcurlHasHTTP3)) func aServerGoingAwayFailsTheTransfersOverQUIC() async throws {
        let server = try await HypercornServer(tls: true, quic: true)
        defer { server.shutdown() }
        let connect = Self.client(.http3Only)
        let stream = connect.stream(TestConnector(url: server.url, endpoint: "/bytes/2000000000"), bufferSize: 64 << 10)
        #expect(try await stream.response.httpVersion == "3")
        let (received, failure) = await Self.read(stream) { server.shutdown() }
        #expect(
            failure is ConnectError && failure as? ConnectError != .cancelled,
            "after \(received) bytes: \(String(describing: failure))")
        let after = await connectError(
            connect.send(Request(url: server.url.appendingPathComponent("after"), timeout: .seconds(30))))
        #expect(after != nil && after != .cancelled, "\(String(describing: after))")
    }

    /// Reads `stream` until it ends or fails, running `atOneMebibyte` once, when the first MiB has
    /// arrived: the bytes received, and the error the stream failed with (`nil` if it ended).
    static func read(
        _ stream: ResponseStream, atOneMebibyte: () -> Void
    ) async -> (received: Int, failure: (any Error)?) {
        var received = 0
        do {
            for try await chunk in stream {
                received += chunk.count
                if received >= 1 << 20, received - chunk.count < 1 << 20 { atOneMebibyte() }
            }
            return (received, nil)
        } catch {
            return (received, error)
        }
    }
}
