import Foundation
import Testing

/// nginx on 127.0.0.1, started by the tests (the test command installs nginx): each server block
/// is one "site" with its own port, serving TLS with the committed test certificates, or
/// cleartext (for HTTP/2 with prior knowledge).
final class NginxServer: @unchecked Sendable {
    // @unchecked: set up in init, then only read; `process` is terminated once in `shutdown`.
    struct Site {
        var certificate: String
        /// nginx `location` blocks.
        var locations: String = #"location / { return 200 "ok\n"; }"#
        var requiresClientCertificate = false
        /// Offer HTTP/2 through ALPN; on a cleartext site, speak only HTTP/2 (with prior knowledge).
        var http2 = false
        /// No TLS: `http://`.
        var cleartext = false
        /// More directives for the server block, e.g. `keepalive_requests 10;`.
        var directives = ""
        /// A Unix domain socket the site listens on as well (with TLS unless cleartext).
        var unixSocket: String?
    }

    static let certificates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Certificates")

    static func file(_ name: String) -> URL {
        certificates.appendingPathComponent(name)
    }

    /// The SPKI pin of a committed certificate, from pins.txt.
    static func pin(_ name: String) throws -> String {
        let lines = try String(contentsOf: file("pins.txt"), encoding: .utf8).split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix(name + " ") }) else { throw POSIXError(.ENOENT) }
        return String(line.split(separator: " ")[1])
    }

    let ports: [Int]
    private let schemes: [String]
    let directory: URL
    private let process: ServerProcess

    /// Starts nginx with one TLS site per element of `sites`; `sites` may refer to the ports of
    /// the others as `PORT0`, `PORT1`, ….
    ///
    /// The ports are found free and then handed to nginx, so a server another test starts in
    /// between can take one: nginx then fails to bind and exits, and a probe that connects to
    /// the port would find that other server. So nginx counts as started once it has written
    /// its pid file, which it does after binding and listening on every port, and a start whose
    /// nginx exited first is tried again on other ports.
    init(sites: [Site]) async throws {
        let nginx = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx", "/usr/local/bin/nginx"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nginx else {
            Issue.record("nginx is not installed; `make test` installs it")
            throw POSIXError(.ENOENT)
        }
        schemes = sites.map { $0.cleartext ? "http" : "https" }
        var attempts = 0
        while true {
            attempts += 1
            // A failed attempt (another test took a port) leaves its Unix domain sockets behind,
            // which the next would fail to bind.
            for case let socketPath? in sites.map(\.unixSocket) { unlink(socketPath) }
            // One port a site: a port found free, freed and found again would give two sites
            // one port, where nginx answers both from the first.
            var ports: [Int] = []
            while ports.count < sites.count {
                let port = try unusedPort()
                if !ports.contains(port) { ports.append(port) }
            }
            let directory = serverScratch("nginx-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.configuration(sites: sites, ports: ports, directory: directory)
                .write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = try ServerProcess(
                program: URL(fileURLWithPath: nginx),
                arguments: ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path],
                directory: directory, log: directory.appendingPathComponent("output.log"))
            if await Self.waitUntilBound(process, pidFile: directory.appendingPathComponent("nginx.pid")) {
                self.ports = ports
                self.directory = directory
                self.process = process
                break
            }
            process.stop { try? FileManager.default.removeItem(at: directory) }
            guard attempts < 3 else { throw POSIXError(.EADDRINUSE) }
        }
    }

    private static func configuration(sites: [Site], ports: [Int], directory: URL) -> String {
        var servers = ""
        for (index, site) in sites.enumerated() {
            var locations = site.locations
            for (other, port) in ports.enumerated() {
                locations = locations.replacingOccurrences(of: "PORT\(other)", with: "\(port)")
            }
            let tls =
                site.cleartext
                ? ""
                : """
                ssl_certificate \(Self.file("\(site.certificate).pem").path);
                ssl_certificate_key \(Self.file("\(site.certificate).key").path);
                \(site.requiresClientCertificate ? "ssl_verify_client on; ssl_client_certificate \(Self.file("client-ca.pem").path);" : "")
                """
            servers += """
                    server {
                        listen 127.0.0.1:\(ports[index])\(site.cleartext ? "" : " ssl")\(site.http2 ? " http2" : "");
                        \(site.unixSocket.map { "listen unix:\($0)\(site.cleartext ? "" : " ssl")\(site.http2 ? " http2" : "");" } ?? "")
                        \(tls)
                        \(site.directives)
                        \(locations)
                    }

                """
        }
        return """
            daemon off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log;
            events { worker_connections 256; }
            http {
                log_format simple '$server_port $request_method $request_uri $status $request_length $server_protocol $connection';
                access_log \(directory.path)/access.log simple;
                client_body_temp_path \(directory.path)/body;
                # nginx's 60 s defaults are deadlines a busy sanitizer run can outlast; a TLS
                # handshake counts against the header's.
                client_header_timeout 10m;
                client_body_timeout 10m;
                send_timeout 10m;
                \(servers)
            }
            """
    }

    /// `true` once nginx has written its pid file, which it does after binding every port;
    /// `false` if it exits first (a port was taken) or takes over 20 seconds. Sleeps between
    /// looks, so that a slow start holds none of the cooperative pool's threads.
    private static func waitUntilBound(_ process: ServerProcess, pidFile: URL) async -> Bool {
        await eventually(within: .seconds(20)) {
            FileManager.default.fileExists(atPath: pidFile.path) || !process.isRunning
        } && FileManager.default.fileExists(atPath: pidFile.path)
    }

    /// The access log's lines: "port method uri status length".
    var accessLog: [String] {
        ((try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// The access log's lines that `matching` accepts, once there are at least `count` of them
    /// (or after a few seconds): nginx writes a request's line after sending its response, so
    /// a client can hold the response before the line is there.
    func accessLog(atLeast count: Int, matching: (String) -> Bool = { _ in true }) async -> [String] {
        _ = await eventually(within: .seconds(10)) { accessLog.filter(matching).count >= count }
        return accessLog.filter(matching)
    }

    func url(_ site: Int, _ path: String = "/") -> URL {
        URL(string: "\(schemes[site])://127.0.0.1:\(ports[site])\(path)")!
    }

    func shutdown() {
        process.stop { [directory] in try? FileManager.default.removeItem(at: directory) }
    }

    deinit {
        shutdown()
    }
}
