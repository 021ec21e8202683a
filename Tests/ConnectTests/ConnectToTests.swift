import Foundation
import Testing

@testable import Connect

/// ``ConnectTo``: libcurl's entries, the ones refused before anything is sent, and against
/// nginx over TLS: the connection goes elsewhere while the certificate, pins and redirect hops
/// are judged by the URL's host.
@Suite("Connect-to", .timeLimit(.minutes(3)))
struct ConnectToTests {
    @Test(arguments: [
        (
            ConnectTo(host: "api.example.com", port: 443, connectHost: "10.0.0.7", connectPort: 8443),
            "api.example.com:443:10.0.0.7:8443"
        ),
        (ConnectTo(host: nil, connectHost: "10.0.0.7", connectPort: 8443), "::10.0.0.7:8443"),
        (ConnectTo(host: "::1", port: 80, connectHost: "fe80::1", connectPort: 8080), "[::1]:80:[fe80::1]:8080"),
        (ConnectTo(host: "[::1]", connectHost: "[::2]", connectPort: 1), "[::1]::[::2]:1")
    ])
    func curlEntry(entry: ConnectTo, text: String) {
        #expect(entry.curlEntry == text)
    }

    @Test(arguments: [
        (ConnectTo(host: "a", port: 1, connectHost: "b", connectPort: 2), nil as String?),
        (
            ConnectTo(host: "", connectHost: "b", connectPort: 2),
            "configuration.connections.connectTo[0].host \"\" is not a host name or address"
        ),
        (
            ConnectTo(host: "a", port: 0, connectHost: "b", connectPort: 2),
            "configuration.connections.connectTo[0].port 0 is not a port (1 to 65535)"
        ),
        (
            ConnectTo(host: "a", connectHost: "b c", connectPort: 2),
            "configuration.connections.connectTo[0].connectHost \"b c\" is not a host name or address"
        ),
        (
            ConnectTo(host: "a", connectHost: "b", connectPort: 70000),
            "configuration.connections.connectTo[0].connectPort 70000 is not a port (1 to 65535)"
        )
    ])
    func problem(entry: ConnectTo, problem: String?) {
        #expect(entry.problem(named: "configuration.connections.connectTo[0]") == problem)
        var settings = ConnectionSettings()
        settings.connectTo = [entry]
        #expect(settings.problem == problem)
    }

    static func connect(
        to server: NginxServer, from host: String, port: Int, pins: [String] = []
    ) -> Connect {
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        configuration.tls.pinnedPublicKeys = pins
        configuration.connections.connectTo = [
            ConnectTo(host: host, port: port, connectHost: "127.0.0.1", connectPort: server.ports[0])
        ]
        return Connect(configuration: configuration)
    }

    static func nginx() async throws -> NginxServer {
        try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "server",
                locations: #"""
                    location /ok { return 200 "ok $host\n"; }
                    location /hop { return 302 https://localhost:1/ok; }
                    """#)
        ])
    }

    @Test func aRequestGoesElsewhereAndStillNamesItsHost() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        // Nothing listens on port 1: only the connect-to entry reaches nginx.
        let connect = Self.connect(to: nginx, from: "localhost", port: 1, pins: [try NginxServer.pin("server")])
        let body = try await connect.request(TestConnector(url: URL(string: "https://localhost:1/ok")!)).value
        #expect(String(decoding: body, as: UTF8.self) == "ok localhost\n")
    }

    @Test func everyRedirectHopFollowsTheSameEntries() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        let connect = Self.connect(to: nginx, from: "localhost", port: 1)
        let response = try await connect.response(TestConnector(url: URL(string: "https://localhost:1/hop")!)).value
        #expect(response.url.absoluteString == "https://localhost:1/ok")
        #expect(String(decoding: response.body, as: UTF8.self) == "ok localhost\n")
    }

    /// The certificate names localhost and 127.0.0.1: a request for another host that connects
    /// to the same server is refused, and so is one whose pin the certificate does not match.
    @Test func theCertificateAndPinsAreJudgedByTheURLsHost() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        let elsewhere = Self.connect(to: nginx, from: "api.example.test", port: 443)
        let wrongName = await connectError(
            elsewhere.request(TestConnector(url: URL(string: "https://api.example.test/ok")!)))
        guard case .tls? = wrongName else {
            Issue.record("expected a TLS failure, got \(String(describing: wrongName))")
            return
        }
        let wrongPin = Self.connect(to: nginx, from: "localhost", port: 1, pins: [try NginxServer.pin("server2")])
        let pinFailure = await connectError(
            wrongPin.request(TestConnector(url: URL(string: "https://localhost:1/ok")!)))
        guard case .tls? = pinFailure else {
            Issue.record("expected a pin failure, got \(String(describing: pinFailure))")
            return
        }
    }

    @Test func anEntryThatCannotWorkFailsTheRequestBeforeItIsSent() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.connections.connectTo = [ConnectTo(host: "localhost", connectHost: "127.0.0.1", connectPort: 0)]
        let error = await connectError(Connect(configuration: configuration).request(TestConnector(url: nginx.url(0))))
        #expect(
            error == .invalidRequest("configuration.connections.connectTo[0].connectPort 0 is not a port (1 to 65535)"))
        #expect(nginx.accessLog.isEmpty)
    }

    // MARK: A connector's own entries

    /// A connector whose requests connect where its entries say.
    struct RoutedConnector: Connector {
        var baseURL: URL
        var endpoint = ""
        var method: HTTPMethod { .get }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)? { nil }
        var connectTo: [ConnectTo]?
    }

    static func entry(to port: Int) -> ConnectTo {
        ConnectTo(host: "localhost", port: 1, connectHost: "127.0.0.1", connectPort: port)
    }

    /// The client's entry sends localhost:1 to a port where nothing listens; the connector's
    /// comes first and reaches nginx, for the request and its redirect hop.
    @Test func aConnectorsEntriesComeBeforeTheClients() async throws {
        let nginx = try await Self.nginx()
        defer { nginx.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        configuration.connections.connectTo = [Self.entry(to: 2)]
        let connect = Connect(configuration: configuration)
        let routed = RoutedConnector(
            baseURL: URL(string: "https://localhost:1/ok")!, connectTo: [Self.entry(to: nginx.ports[0])])
        #expect(String(decoding: try await connect.request(routed).value, as: UTF8.self) == "ok localhost\n")

        var hop = routed
        hop.baseURL = URL(string: "https://localhost:1/hop")!
        let response = try await connect.response(hop).value
        #expect(response.url.absoluteString == "https://localhost:1/ok")
        #expect(String(decoding: response.body, as: UTF8.self) == "ok localhost\n")

        let unrouted = await connectError(connect.request(TestConnector(url: URL(string: "https://localhost:1/ok")!)))
        guard case .transport(let failure)? = unrouted, failure.kind == .connectionRefused else {
            Issue.record("expected the client's entry to a closed port, got \(String(describing: unrouted))")
            return
        }
    }

    /// Two connectors send the same URL to two servers, one after another and at once: a
    /// connection made for one is never reused for the other.
    @Test func connectionsToOneURLRoutedApartAreNotShared() async throws {
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(certificate: "server", locations: #"location / { return 200 "one"; }"#),
            NginxServer.Site(certificate: "server", locations: #"location / { return 200 "two"; }"#)
        ])
        defer { nginx.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.tls.trustedCertificates = NginxServer.file("ca.pem")
        let connect = Connect(configuration: configuration)
        let url = URL(string: "https://localhost:1/")!
        let one = RoutedConnector(baseURL: url, connectTo: [Self.entry(to: nginx.ports[0])])
        let two = RoutedConnector(baseURL: url, connectTo: [Self.entry(to: nginx.ports[1])])
        for _ in 0..<3 {
            #expect(String(decoding: try await connect.request(one).value, as: UTF8.self) == "one")
            #expect(String(decoding: try await connect.request(two).value, as: UTF8.self) == "two")
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                let connector = index.isMultiple(of: 2) ? one : two
                let future = connect.request(connector)
                group.addTask {
                    String(decoding: try await future.value, as: UTF8.self) == (index.isMultiple(of: 2) ? "one" : "two")
                }
            }
            for try await answeredByTheRightServer in group { #expect(answeredByTheRightServer) }
        }
    }

    @Test func aConnectorsEntryThatCannotWorkFailsBeforeItIsSent() async throws {
        let routed = RoutedConnector(
            baseURL: URL(string: "http://localhost:1/")!,
            connectTo: [ConnectTo(host: "localhost", connectHost: "", connectPort: 80)])
        let error = await connectError(Connect().request(routed))
        #expect(error == .invalidRequest(#"the request's connectTo[0].connectHost "" is not a host name or address"#))
    }
}
