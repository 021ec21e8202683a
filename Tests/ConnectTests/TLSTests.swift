import ConnectFutures
import Foundation
import Testing

@testable import Connect

@Suite("TLS", .serialized, .timeLimit(.minutes(3)))
struct TLSTests {
    static func connect(_ configure: (inout TLSConfiguration) throws -> Void) rethrows -> Connect {
        var configuration = ConnectConfiguration()
        try configure(&configuration.tls)
        return Connect(configuration: configuration)
    }

    static let trustingTestCA = connect { $0.trustedCertificates = NginxServer.file("ca.pem") }

    @Test func aCustomCABundleIsTrustedAndTheSystemsIsNot() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server")])
        defer { server.shutdown() }
        let body = try await Self.trustingTestCA.request(TestConnector(url: server.url(0))).value
        #expect(String(decoding: body, as: UTF8.self) == "ok\n")
        let untrusted = await connectError(Connect().request(TestConnector(url: server.url(0))))
        guard case .tls(let code, _)? = untrusted else {
            Issue.record("expected a TLS failure, got \(String(describing: untrusted))")
            return
        }
        #expect(code == 60)  // CURLE_PEER_FAILED_VERIFICATION
    }

    @Test func expiredAndUntrustedCertificatesFail() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "expired"), .init(certificate: "selfsigned")])
        defer { server.shutdown() }
        let expired = await connectError(Self.trustingTestCA.request(TestConnector(url: server.url(0))))
        guard case .tls(let code, let message)? = expired else {
            Issue.record("expected a TLS failure, got \(String(describing: expired))")
            return
        }
        #expect(code == 60)  // CURLE_PEER_FAILED_VERIFICATION
        // Also when the handshake's last send failed first (the server gone), whose message
        // libcurl keeps (see `CurlFailureMessage`).
        #expect(message.lowercased().contains("expired"))
        let selfSigned = await connectError(Self.trustingTestCA.request(TestConnector(url: server.url(1))))
        guard case .tls? = selfSigned else {
            Issue.record("expected a TLS failure, got \(String(describing: selfSigned))")
            return
        }
        #expect(server.accessLog.isEmpty)
    }

    /// A certificate refused in a handshake whose alert then cannot be sent (the server reset
    /// the connection after its first flight): libcurl keeps the message of the failed send,
    /// and Connect puts what the failure's code means, and with OpenSSL why the certificate was
    /// refused, before it (see `CurlFailureMessage`). With GnuTLS the reset comes before the
    /// certificate is checked.
    @Test(.enabled(if: PythonPeer.isInstalled("python3") || ProcessInfo.processInfo.environment["CI"] != nil))
    func aRefusedCertificateIsNamedWhenTheAlertCannotBeSent() async throws {
        let peer = try await PythonPeer(script: "reset_after_flight_server.py") {
            ["\($0)", NginxServer.file("expired.pem").path, NginxServer.file("expired.key").path]
        }
        defer { peer.shutdown() }
        let url = URL(string: "https://127.0.0.1:\(peer.port)/")!
        let error = await connectError(Self.trustingTestCA.request(TestConnector(url: url)))
        guard LibcurlFeatures.running.tlsLibraryIsOpenSSL else {
            // GnuTLS checks the certificate once the handshake is done, which this one never is:
            // the reset ends it, and which failure names it depends on which send meets the
            // reset first (the handshake's, a TLS failure; the socket's, a reset). Either way
            // nothing was sent, and a TLS failure's message still says what its code means.
            switch error {
            case .tls(_, let message)?:
                #expect(!CurlFailureMessage.isAboutTheSocket(message), "\(message)")
            case .transport(let failure)?:
                #expect(failure.kind == .connectionReset && !failure.requestSent, "\(failure)")
            default:
                Issue.record("expected a TLS failure or a reset, got \(String(describing: error))")
            }
            return
        }
        guard case .tls(let code, let message)? = error else {
            Issue.record("expected a TLS failure, got \(String(describing: error))")
            return
        }
        #expect(!CurlFailureMessage.isAboutTheSocket(message), "\(message)")
        #expect(code == 60)  // CURLE_PEER_FAILED_VERIFICATION
        #expect(message.contains("certificate has expired"), "\(message)")
    }

    @Test func publicKeyPinning() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server")])
        defer { server.shutdown() }
        let matching = try Self.connect {
            $0.trustedCertificates = NginxServer.file("ca.pem")
            $0.pinnedPublicKeys = [try NginxServer.pin("server")]
        }
        #expect(try await matching.request(TestConnector(url: server.url(0))).value == Data("ok\n".utf8))

        let mismatched = try Self.connect {
            $0.trustedCertificates = NginxServer.file("ca.pem")
            $0.pinnedPublicKeys = [try NginxServer.pin("server2")]
        }
        let upload = TestConnector(
            url: server.url(0), endpoint: "/upload", method: .post,
            parameters: HTTPTask.requestData(Data(repeating: 1, count: 4_096)))
        let error = await connectError(mismatched.request(upload))
        guard case .tls(let code, _)? = error else {
            Issue.record("expected a pin failure, got \(String(describing: error))")
            return
        }
        #expect(code == 90)  // CURLE_SSL_PINNEDPUBKEYNOTMATCH
        // The first request reached the server; the POST and its body never did.
        let lines = await server.accessLog(atLeast: 1)
        #expect(lines.count == 1 && !lines.joined().contains("POST"))
    }

    @Test func certificatePinning() async throws {
        let server = try await NginxServer(sites: [.init(certificate: "server")])
        defer { server.shutdown() }
        let pinned = Self.connect { $0.pinnedCertificates = NginxServer.file("server.pem") }
        #expect(try await pinned.request(TestConnector(url: server.url(0))).value == Data("ok\n".utf8))
        let otherPin = Self.connect { $0.pinnedCertificates = NginxServer.file("server2.pem") }
        guard case .tls? = await connectError(otherPin.request(TestConnector(url: server.url(0)))) else {
            Issue.record("expected a TLS failure for a certificate that is not the pinned one")
            return
        }
    }

    @Test func pinsApplyToRedirectTargets() async throws {
        let server = try await NginxServer(sites: [
            .init(certificate: "server", locations: #"location / { return 302 https://127.0.0.1:PORT1/landing; }"#),
            .init(certificate: "server2", locations: #"location / { return 200 "landed\n"; }"#)
        ])
        defer { server.shutdown() }
        // Both certificates are trusted; only the first host's key is pinned.
        let pinnedToFirst = try Self.connect {
            $0.trustedCertificates = NginxServer.file("ca.pem")
            $0.pinnedPublicKeys = [try NginxServer.pin("server")]
        }
        let error = await connectError(pinnedToFirst.request(TestConnector(url: server.url(0))))
        guard case .tls(90, _)? = error else {
            Issue.record("expected the redirect target's pin to fail, got \(String(describing: error))")
            return
        }
        let bothPinned = try Self.connect {
            $0.trustedCertificates = NginxServer.file("ca.pem")
            $0.pinnedPublicKeys = [try NginxServer.pin("server"), try NginxServer.pin("server2")]
        }
        #expect(try await bothPinned.request(TestConnector(url: server.url(0))).value == Data("landed\n".utf8))
    }

    @Test func http2IsUsedWhenTheServerOffersIt() async throws {
        let server = try await NginxServer(sites: [
            .init(certificate: "server", http2: true), .init(certificate: "server")
        ])
        defer { server.shutdown() }
        let h2 = try await Self.trustingTestCA.response(TestConnector(url: server.url(0))).value
        #expect(h2.httpVersion == "2")
        let h1 = try await Self.trustingTestCA.response(TestConnector(url: server.url(1))).value
        #expect(h1.httpVersion == "1.1")

        // Concurrent requests share one multiplexed connection.
        let client = Self.connect { $0.trustedCertificates = NginxServer.file("ca.pem") }
        _ = try await client.request(TestConnector(url: server.url(0), endpoint: "/warm")).value
        let bodies = try await Future.whenAll(
            (0..<20).map { client.request(TestConnector(url: server.url(0), endpoint: "/m/\($0)")) }
        ).value
        #expect(bodies.allSatisfy { $0 == Data("ok\n".utf8) })
        let lines = await server.accessLog(atLeast: 21) { $0.contains("/m/") || $0.contains("/warm") }
        #expect(lines.count == 21 && lines.allSatisfy { $0.contains("HTTP/2.0") })
        let connections = Set(lines.compactMap { $0.split(separator: " ").last })
        #expect(connections.count == 1)
    }

    /// A body produced slowly, of unknown length, over HTTP/2: libcurl's read callback pauses
    /// on an empty buffer and resumes at the next chunk, in DATA frames instead of chunks.
    @Test func aStreamedBodyGoesOutOverHTTP2() async throws {
        let upload = #"location /upload/ { root .; dav_methods PUT; client_max_body_size 0; }"#
        let server = try await NginxServer(sites: [.init(certificate: "server", locations: upload, http2: true)])
        defer { server.shutdown() }
        // nginx's workers may run as another user: the folder they write to is open to all.
        try FileManager.default.createDirectory(
            at: server.directory.appendingPathComponent("upload"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        let chunks = AsyncStream<Data> { continuation in
            Task {
                for index in 0..<64 {
                    continuation.yield(cyclicBytes(65_536, plus: index, modulo: 256))
                    if index % 8 == 0 { try? await Task.sleep(for: .milliseconds(20)) }
                }
                continuation.finish()
            }
        }
        let expected = (0..<64).reduce(into: Data()) { $0.append(cyclicBytes(65_536, plus: $1, modulo: 256)) }
        let request = Request(method: .put, url: server.url(0, "/upload/h2.bin"), body: .stream(chunks))
        let response = try await Self.trustingTestCA.send(request).value
        #expect(response.httpVersion == "2")
        #expect(response.statusCode == 201)
        let stored = try Data(contentsOf: server.directory.appendingPathComponent("upload/h2.bin"))
        #expect(stored == expected)
    }

    @Test func mutualTLS() async throws {
        let server = try await NginxServer(sites: [
            .init(
                certificate: "server", locations: #"location / { return 200 "hello $ssl_client_s_dn\n"; }"#,
                requiresClientCertificate: true)
        ])
        defer { server.shutdown() }
        let anonymous = await connectError(Self.trustingTestCA.request(TestConnector(url: server.url(0))))
        #expect(anonymous?.statusCode == 400)  // nginx: "No required SSL certificate was sent"
        let identified = Self.connect {
            $0.trustedCertificates = NginxServer.file("ca.pem")
            $0.clientCertificate = ClientCertificate(
                certificate: NginxServer.file("client.pem"), privateKey: NginxServer.file("client.key"))
        }
        let body = try await identified.request(TestConnector(url: server.url(0))).value
        #expect(String(decoding: body, as: UTF8.self) == "hello CN=connect-test-client\n")
    }
}
