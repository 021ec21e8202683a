import Foundation
import Testing

@testable import Connect

/// Connections through a Unix domain socket (`configuration.connections.unixSocketPath`), as the
/// Docker and Podman APIs listen: against nginx on a socket, over HTTP/1.1 and TLS, one request
/// after another on one connection and many at once. The fault suite runs over a socket too
/// (`FaultSuiteTests.scenarioOverAUnixSocket`), stray responses included.
@Suite("Unix domain sockets", .timeLimit(.minutes(3)))
struct UnixSocketTests {
    /// A socket path short enough for `sockaddr_un`, removed by the caller.
    static func socketPath() -> String {
        "/tmp/connect-\(UUID().uuidString.prefix(8)).sock"
    }

    static func connect(through socketPath: String, trustingTestCA: Bool = false) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.connections.unixSocketPath = socketPath
        if trustingTestCA { configuration.tls.trustedCertificates = NginxServer.file("ca.pem") }
        return Connect(configuration: configuration)
    }

    @Test func requestsOneAfterAnotherShareOneConnection() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try NginxServer(sites: [
            NginxServer.Site(
                certificate: "server", locations: #"location /ok { return 200 "ok $host\n"; }"#, cleartext: true,
                unixSocket: socketPath)
        ])
        defer { nginx.shutdown() }
        let connect = Self.connect(through: socketPath)
        for _ in 0..<5 {
            let body = try await connect.request(TestConnector(url: URL(string: "http://localhost/ok")!)).value
            #expect(String(decoding: body, as: UTF8.self) == "ok localhost\n")
        }
        let lines = await nginx.accessLog(atLeast: 5) { $0.contains(" /ok ") }
        #expect(lines.count == 5)
        #expect(Set(lines.compactMap { $0.split(separator: " ").last }).count == 1, "\(lines)")
    }

    @Test func manyRequestsAtOnceEachGetTheirOwnAnswer() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try NginxServer(sites: [
            NginxServer.Site(
                certificate: "server", locations: #"location / { return 200 "$uri"; }"#, cleartext: true,
                unixSocket: socketPath)
        ])
        defer { nginx.shutdown() }
        let connect = Self.connect(through: socketPath)
        for round in 0..<3 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let path = "/\(round)/\(index)"
                        let body = try await connect.request(
                            TestConnector(url: URL(string: "http://localhost\(path)")!)
                        )
                        .value
                        #expect(String(decoding: body, as: UTF8.self) == path)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func httpsGoesOverTheSocketWithTheURLsHost() async throws {
        let socketPath = Self.socketPath()
        defer { unlink(socketPath) }
        let nginx = try NginxServer(sites: [
            NginxServer.Site(
                certificate: "server", locations: #"location /ok { return 200 "tls $host\n"; }"#, unixSocket: socketPath
            )
        ])
        defer { nginx.shutdown() }
        let connect = Self.connect(through: socketPath, trustingTestCA: true)
        let body = try await connect.request(TestConnector(url: URL(string: "https://localhost/ok")!)).value
        #expect(String(decoding: body, as: UTF8.self) == "tls localhost\n")
    }

    @Test func aPathWithoutASocketFailsBeforeAnythingIsSent() async throws {
        let connect = Self.connect(through: "/tmp/connect-no-such.sock")
        let error = await connectError(connect.request(TestConnector(url: URL(string: "http://localhost/ok")!)))
        #expect(
            error
                == .invalidRequest(
                    "configuration.connections.unixSocketPath /tmp/connect-no-such.sock: no socket there"))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("connect-not-a-socket-\(UUID())")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let plainFile = await connectError(
            Self.connect(through: file.path).request(TestConnector(url: URL(string: "http://localhost/ok")!)))
        #expect(plainFile == .invalidRequest("configuration.connections.unixSocketPath \(file.path): no socket there"))
    }

    @Test(arguments: [
        ("", "configuration.connections.unixSocketPath \"\" is not a path"),
        (
            "/tmp/" + String(repeating: "s", count: 103),
            "configuration.connections.unixSocketPath is 108 bytes long; a socket's path holds at most 107"
        )
    ])
    func aPathThatCannotBeASocketsIsRefused(path: String, problem: String) {
        var settings = ConnectionSettings()
        settings.unixSocketPath = path
        #expect(settings.problem == problem)
    }
}
