import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

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
