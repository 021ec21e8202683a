import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener that records the first bytes of one connection and answers with `reply`.
final class RawListener: @unchecked Sendable {
    // @unchecked: `received` is written by the accepting thread before `done` is signalled.
    let port: Int
    private let descriptor: Int32
    private var received = [UInt8]()
    private let done = DispatchSemaphore(value: 0)

    init(reply: [UInt8]) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = self.descriptor
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(descriptor, raw, length) == 0, listen(descriptor, 4) == 0,
                    getsockname(descriptor, raw, &length) == 0
                else {
                    throw POSIXError(.EADDRINUSE)
                }
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            let connection = accept(descriptor, nil, nil)
            if connection >= 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = recv(connection, &buffer, buffer.count, 0)
                if count > 0 { received = Array(buffer[..<count]) }
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
            done.signal()
        }.start()
    }

    /// The bytes the first connection sent, once it has been served.
    func firstBytes() -> [UInt8] {
        _ = done.wait(timeout: .now() + 10)
        return received
    }

    deinit {
        close(descriptor)
    }
}

@Suite("Cookies and proxies", .timeLimit(.minutes(3)))
struct CookieAndProxyTests {
    @Test func libcurlReadsExpiryDatesAsItsEngineDoes() {
        #expect(CookieTarget.date("Wed, 09 Jun 2021 10:18:14 GMT") == 1_623_233_894)
        #expect(CookieTarget.date("Wednesday, 09-Jun-21 10:18:14 GMT") == 1_623_233_894)
        #expect(CookieTarget.date("not a date") == nil)
        let target = CookieTarget(url: "https://[::1]:8443/chat?room=1")
        #expect(target?.host == "::1" && target?.path == "/chat" && target?.isSecure == true)
        #expect(CookieTarget(url: "http://example.com")?.path == "/")
    }

    static func cookieServer() throws -> TestServer {
        try TestServer { request in
            request.path == "/login"
                ? TestResponse(headers: [("Set-Cookie", "session=abc123; Path=/; HttpOnly")], body: Data("in".utf8))
                : .text("cookie: \(request.header("Cookie") ?? "none")")
        }
    }

    @Test func cookiesAreOffByDefault() async throws {
        let server = try Self.cookieServer()
        defer { server.shutdown() }
        let connect = Connect()
        _ = try await connect.request(TestConnector(server, "/login")).value
        #expect(
            String(decoding: try await connect.request(TestConnector(server, "/me")).value, as: UTF8.self)
                == "cookie: none")
    }

    @Test func inMemoryCookiesAreSharedAcrossRequests() async throws {
        let server = try Self.cookieServer()
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.cookies = .inMemory
        let connect = Connect(configuration: configuration)
        _ = try await connect.request(TestConnector(server, "/login")).value
        #expect(
            String(decoding: try await connect.request(TestConnector(server, "/me")).value, as: UTF8.self)
                == "cookie: session=abc123")
        // Another client has its own jar.
        var other = ConnectConfiguration()
        other.cookies = .inMemory
        #expect(
            String(
                decoding: try await Connect(configuration: other).request(TestConnector(server, "/me")).value,
                as: UTF8.self) == "cookie: none")
    }

    @Test func fileCookiesOutliveTheClient() async throws {
        let server = try Self.cookieServer()
        defer { server.shutdown() }
        let jar = FileManager.default.temporaryDirectory.appendingPathComponent(
            "connect-cookies-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: jar) }
        var configuration = ConnectConfiguration()
        configuration.cookies = .file(jar)
        _ = try await Connect(configuration: configuration).request(TestConnector(server, "/login")).value
        #expect(try String(contentsOf: jar, encoding: .utf8).contains("session\tabc123"))
        let later = Connect(configuration: configuration)
        #expect(
            String(decoding: try await later.request(TestConnector(server, "/me")).value, as: UTF8.self)
                == "cookie: session=abc123")
    }

    /// libcurl sends no WebSocket handshake itself: Connect reads the jar for it and stores what
    /// its answer sets, by the same rules.
    @Test func aWebSocketHandshakeSendsAndStoresCookies() async throws {
        let server = try Self.cookieServer()
        defer { server.shutdown() }
        let sockets = try ScriptedWebSocketServer(
            extra: [
                ("Set-Cookie", "room=swift; Path=/"), ("Set-Cookie", "elsewhere=1; Domain=example.com"),
                ("Set-Cookie", "narrow=1; Path=/socket/deeper")
            ]
        ) { [] }
        defer { sockets.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.cookies = .inMemory
        let connect = Connect(configuration: configuration)
        _ = try await connect.request(TestConnector(server, "/login")).value
        let socket = try await connect.webSocket(
            TestConnector(
                url: sockets.webSocketURL, endpoint: "/socket", headers: [HTTPHeader(name: "Cookie", value: "mine=1")]))
        try await socket.close()
        // The jar's cookie for 127.0.0.1 (any port) after the request's own.
        #expect(sockets.requests.first?.header("Cookie") == "mine=1; session=abc123")
        // What the 101 set goes with the next request; a cookie for another domain was refused.
        let cookies = String(decoding: try await connect.request(TestConnector(server, "/me")).value, as: UTF8.self)
        #expect(cookies.contains("room=swift") && cookies.contains("session=abc123"))
        #expect(!cookies.contains("elsewhere") && !cookies.contains("narrow"))
        let again = try await connect.webSocket(TestConnector(url: sockets.webSocketURL, endpoint: "/socket/deeper/x"))
        try await again.close()
        // The longer path first (RFC 6265 §5.4).
        let deeper = sockets.requests.last?.header("Cookie") ?? ""
        #expect(deeper.hasPrefix("narrow=1; ") && deeper.contains("session=abc123") && deeper.contains("room=swift"))
    }

    @Test func requestsGoThroughAnHTTPProxy() async throws {
        let proxy = try TestServer { request in .text("proxied \(request.uri)") }
        defer { proxy.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: proxy.port, username: "me", password: "secret")
        let body = try await Connect(configuration: configuration).request(
            TestConnector(url: URL(string: "http://api.example.invalid")!, endpoint: "/todos/1")
        ).value
        #expect(String(decoding: body, as: UTF8.self) == "proxied http://api.example.invalid/todos/1")
        #expect(proxy.requests.first?.header("Proxy-Authorization") == "Basic bWU6c2VjcmV0")
        #expect(proxy.requests.first?.header("Host") == "api.example.invalid")
    }

    @Test func bypassedHostsAreReachedDirectly() async throws {
        let server = try TestServer { _ in .text("direct") }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.proxy = ProxyConfiguration(url: "http://127.0.0.1:1", bypassHosts: ["127.0.0.1"])
        #expect(
            String(
                decoding: try await Connect(configuration: configuration).request(TestConnector(server, "/")).value,
                as: UTF8.self) == "direct")
    }

    @Test func aSOCKS5ProxyIsSpokenTo() async throws {
        // The listener answers "no acceptable method", so the request fails, after curl has
        // opened with a SOCKS5 greeting offering "no authentication" and user/password.
        let listener = try RawListener(reply: [0x05, 0xFF])
        var configuration = ConnectConfiguration()
        configuration.proxy = .socks5(host: "127.0.0.1", port: listener.port, username: "u", password: "p")
        // The listener answers at once; these bound a hang only, past what a sanitizer run that
        // starts every suite at once can stall the transfer threads for.
        configuration.connectTimeout = .seconds(600)
        configuration.timeout = .seconds(600)
        let error = await connectError(
            Connect(configuration: configuration).request(
                TestConnector(url: URL(string: "http://api.example.invalid")!)))
        guard case .transport(let failure)? = error, !failure.requestSent else {
            Issue.record("expected a proxy failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .proxy && failure.curlCode == 97)  // CURLE_PROXY
        let greeting = listener.firstBytes()
        #expect(greeting.first == 0x05)  // SOCKS version 5
        #expect(greeting.count >= 2 && greeting.count == 2 + Int(greeting[1]))
        #expect(greeting.dropFirst(2).contains(0x02))  // offers username/password
    }
}
