import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// ``ConnectionSettings``: the settings that cannot work, refused before a byte is sent, and each
/// libcurl option doing what its setting says against nginx and the in-process server.
@Suite("Connection settings", .timeLimit(.minutes(3)))
struct ConnectionSettingsTests {
    static func settings(_ change: (inout ConnectionSettings) -> Void) -> ConnectionSettings {
        var settings = ConnectionSettings()
        change(&settings)
        return settings
    }

    @Test(arguments: [
        (settings { _ in }, nil as String?),
        (settings { $0.localInterface = "" }, "configuration.connections.localInterface \"\" names no interface"),
        (
            settings { $0.localInterface = "eth0\n" },
            "configuration.connections.localInterface \"eth0\\n\" names no interface"
        ),
        (
            settings { $0.dnsCacheLifetime = .seconds(-1) },
            "configuration.connections.dnsCacheLifetime is negative (-1.0 seconds)"
        ),
        (
            settings { $0.maximumIdleTime = .milliseconds(-5) },
            "configuration.connections.maximumIdleTime is negative (-0.005 seconds)"
        ),
        (settings { $0.maximumIdleTime = .zero }, nil),
        (
            settings { $0.maximumLifetime = .zero },
            "configuration.connections.maximumLifetime must be positive (0.0 seconds); nil keeps connections"
        ),
        (
            settings { $0.maximumReceiveRate = 0 },
            "configuration.connections.maximumReceiveRate must be a positive number of bytes a second (0); nil does not limit"
        ),
        (
            settings { $0.maximumSendRate = -1 },
            "configuration.connections.maximumSendRate must be a positive number of bytes a second (-1); nil does not limit"
        ),
        (
            settings {
                $0.ipVersion = .v6
                $0.localInterface = "lo"
                $0.maximumLifetime = .seconds(30)
            }, nil
        )
    ])
    func problem(settings: ConnectionSettings, problem: String?) {
        #expect(settings.problem == problem)
    }

    @Test(arguments: [
        (Duration.zero, 0), (.seconds(1), 1), (.milliseconds(1), 1), (.milliseconds(1500), 2), (.seconds(118), 118)
    ])
    func wholeSecondsRoundUp(duration: Duration, seconds: Int) {
        #expect(ConnectionSettings.seconds(duration) == seconds)
    }

    @Test func aSettingThatCannotWorkFailsEveryRequestBeforeItIsSent() async throws {
        let server = try TestServer { _ in TestResponse(body: Data("ok".utf8)) }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.connections.maximumReceiveRate = 0
        let connect = Connect(configuration: configuration)
        for _ in 0..<2 {
            let error = await connectError(connect.request(TestConnector(server, "/")))
            guard case .invalidRequest(let message)? = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                return
            }
            #expect(message.contains("configuration.connections.maximumReceiveRate"))
        }
        #expect(server.requests.isEmpty)
    }

    /// nginx names each connection in its access log: the serials tell reused connections apart.
    private static func connectionSerials(_ nginx: NginxServer, count: Int) async -> [String] {
        await nginx.accessLog(atLeast: count) { $0.contains(" /ok ") }.compactMap { $0.split(separator: " ").last }
            .map(String.init)
    }

    private static func nginx() async throws -> NginxServer {
        try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "localhost", locations: #"location /ok { return 200 "ok\n"; }"#, cleartext: true)
        ])
    }

    /// Two requests two seconds apart: on a new connection with a maximum idle time of one
    /// second, on the same one with libcurl's default. (A slow run only lengthens the pause.)
    @Test func aConnectionIdleLongerThanTheMaximumIsNotReused() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        let connector = TestConnector(url: nginx.url(0, "/ok"))
        var configuration = ConnectConfiguration()
        configuration.connections.maximumIdleTime = .seconds(1)
        for connect in [Connect(configuration: configuration), Connect()] {
            _ = try await connect.request(connector).value
            try await Task.sleep(for: .milliseconds(2200))
            _ = try await connect.request(connector).value
        }
        let serials = await Self.connectionSerials(nginx, count: 4)
        #expect(serials.count == 4)
        #expect(serials[0] != serials[1], "a connection idle over the maximum was reused")
        #expect(serials[2] == serials[3], "with libcurl's default the connection is reused")
    }

    /// Requests every 300 ms for three seconds: with a lifetime of one second they move to new
    /// connections though none is ever idle that long; without one, they share one.
    @Test func aConnectionOlderThanItsLifetimeIsNotReusedThoughNeverIdle() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.connections.maximumLifetime = .seconds(1)
        for (index, connect) in [Connect(configuration: configuration), Connect()].enumerated() {
            let connector = TestConnector(url: nginx.url(0, "/ok?client=\(index)"))
            for _ in 0..<10 {
                _ = try await connect.request(connector).value
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        let lines = await nginx.accessLog(atLeast: 20) { $0.contains(" /ok?client=") }
        func serials(_ client: Int) -> Set<Substring> {
            Set(lines.filter { $0.contains("client=\(client) ") }.compactMap { $0.split(separator: " ").last })
        }
        #expect(serials(0).count >= 2)
        #expect(serials(1).count == 1)
    }

    @Test func onlyTheChosenAddressFamilyIsUsed() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        let url = URL(string: "http://localhost:\(nginx.ports[0])/ok")!
        var configuration = ConnectConfiguration()
        configuration.connections.ipVersion = .v4
        #expect(try await Connect(configuration: configuration).request(TestConnector(url: url)).value.count == 3)

        // nginx listens on 127.0.0.1 only: over IPv6, localhost is ::1 (refused) or no address.
        configuration.connections.ipVersion = .v6
        let error = await connectError(Connect(configuration: configuration).request(TestConnector(url: url)))
        guard case .transport(let failure)? = error else {
            Issue.record("expected a transport failure, got \(String(describing: error))")
            return
        }
        #expect([.connectionRefused, .nameResolution].contains(failure.kind))
        #expect(!failure.requestSent)
    }

    @Test func connectionsLeaveFromTheChosenLocalAddress() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        let connector = TestConnector(url: nginx.url(0, "/ok"))
        var configuration = ConnectConfiguration()
        configuration.connections.localInterface = "127.0.0.1"
        #expect(try await Connect(configuration: configuration).request(connector).value.count == 3)

        // An address of no interface here (TEST-NET-1) cannot be bound.
        configuration.connections.localInterface = "192.0.2.1"
        let error = await connectError(Connect(configuration: configuration).request(connector))
        guard case .transport(let failure)? = error else {
            Issue.record("expected a transport failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .localInterface)
        #expect(!failure.requestSent)
    }

    /// nginx serving 3 MB as /file.bin from a scratch directory, and the bytes.
    private static func fileServer() async throws -> (NginxServer, URL, Data) {
        let root = try scratchDirectory()
        let body = pattern(3_000_000)
        try body.write(to: root.appendingPathComponent("file.bin"))
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(certificate: "localhost", locations: "location / { root \(root.path); }", cleartext: true)
        ])
        return (nginx, root, body)
    }

    @Test func aTransferReceivesNoFasterThanItsRate() async throws {
        let (nginx, root, body) = try await Self.fileServer()
        defer {
            nginx.shutdown()
            try? FileManager.default.removeItem(at: root)
        }
        var configuration = ConnectConfiguration()
        configuration.connections.maximumReceiveRate = 1_000_000
        let connect = Connect(configuration: configuration)
        let started = ContinuousClock.now
        let received = try await connect.request(TestConnector(url: nginx.url(0, "/file.bin"))).value
        // 3 MB at 1 MB a second. libcurl pauses reading once a transfer is over its rate, so what
        // comes in one burst before that (a few hundred KB on loopback) is not held back.
        #expect(ContinuousClock.now - started >= .milliseconds(1500))
        #expect(received == body)
    }

    @Test func aTransferSendsNoFasterThanItsRate() async throws {
        let server = try TestServer { request in TestResponse(body: Data("\(request.body.count)".utf8)) }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.connections.maximumSendRate = 100_000
        let connect = Connect(configuration: configuration)
        let started = ContinuousClock.now
        let answer = try await connect.send(
            Request(method: .post, url: server.baseURL.appendingPathComponent("upload"), body: .data(pattern(200_000)))
        ).value
        #expect(ContinuousClock.now - started >= .milliseconds(1200))
        #expect(String(decoding: answer.body, as: UTF8.self) == "200000")
    }

    /// A download's own rate, in place of the client's (here none): 3 MB at 1 MB a second.
    @Test func aDownloadReceivesNoFasterThanItsOwnRate() async throws {
        let (nginx, root, body) = try await Self.fileServer()
        defer {
            nginx.shutdown()
            try? FileManager.default.removeItem(at: root)
        }
        let connect = Connect()
        let connector = TestConnector(url: nginx.url(0, "/file.bin"))
        let destination = root.appendingPathComponent("copy.bin")
        let started = ContinuousClock.now
        let file = try await connect.download(connector, to: destination, maximumRate: 1_000_000).value
        #expect(ContinuousClock.now - started >= .milliseconds(1500))
        #expect(try Data(contentsOf: file.location) == body)
    }

    @Test func anUploadSendsNoFasterThanItsOwnRate() async throws {
        let server = try TestServer { request in TestResponse(body: Data("\(request.body.count)".utf8)) }
        defer { server.shutdown() }
        let root = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("upload.bin")
        try pattern(200_000).write(to: file)
        let started = ContinuousClock.now
        let answer = try await Connect().upload(
            fileAt: file, to: TestConnector(server, "/upload", method: .put), maximumRate: 100_000
        ).value
        #expect(ContinuousClock.now - started >= .milliseconds(1200))
        #expect(String(decoding: answer, as: UTF8.self) == "200000")
    }

    @Test func aRateOfNothingFailsBeforeAnythingIsSent() async throws {
        let server = try TestServer { _ in TestResponse(body: Data("ok".utf8)) }
        defer { server.shutdown() }
        let connect = Connect()
        let download = await connectError(connect.download(TestConnector(server, "/"), maximumRate: 0))
        let upload = await connectError(connect.upload(files: [], to: TestConnector(server, "/"), maximumRate: -5))
        for error in [download, upload] {
            guard case .invalidRequest(let message)? = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                continue
            }
            #expect(message.hasPrefix("maximumRate must be a positive number of bytes a second"))
        }
        #expect(server.requests.isEmpty)
    }
}
