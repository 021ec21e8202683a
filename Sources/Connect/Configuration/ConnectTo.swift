/// Where connections for a host and port go instead: another host, another port, or both, as
/// curl's `--connect-to` (`CURLOPT_CONNECT_TO`).
///
/// The request still names the URL's host: its `Host` header (or `:authority`), its TLS server
/// name, the certificate it is verified against and the pins it must match are the URL's. Only
/// the address the connection is made to changes, for every request and redirect hop whose
/// host and port match.
///
/// ```swift
/// // api.example.com's port 443 is served by the canary at 10.0.0.7:8443
/// configuration.connections.connectTo = [
///     ConnectTo(host: "api.example.com", port: 443, connectHost: "10.0.0.7", connectPort: 8443)
/// ]
/// ```
public struct ConnectTo: Sendable, Hashable {
    /// The URL host it applies to (a name or an address, compared without case); `nil` for
    /// every host.
    public var host: String?
    /// The URL port it applies to (the scheme's when the URL names none); `nil` for every port.
    public var port: Int?
    /// The host or address to connect to instead; an IPv6 address without brackets.
    public var connectHost: String
    /// The port to connect to instead.
    public var connectPort: Int

    /// Connections for `host` and `port` (each `nil` for any) go to `connectHost` and `connectPort`.
    public init(host: String?, port: Int? = nil, connectHost: String, connectPort: Int) {
        self.host = host
        self.port = port
        self.connectHost = connectHost
        self.connectPort = connectPort
    }

    /// The entry as libcurl takes it: `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`, an empty
    /// field matching any, IPv6 addresses in brackets.
    var curlEntry: String {
        "\(host.map(Self.bracketed) ?? ""):\(port.map(String.init) ?? ""):\(Self.bracketed(connectHost)):\(connectPort)"
    }

    /// `host` as libcurl writes a host in its entries and files: an IPv6 literal in brackets.
    static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// Why the entry cannot work, naming it as `name` (`configuration.connections.connectTo[0]`),
    /// or `nil`.
    func problem(named name: String) -> String? {
        func isHost(_ text: String) -> Bool {
            !text.isEmpty && !text.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "/" || $0 == "\0" })
        }
        if let host, !isHost(host) { return "\(name).host \(host.debugDescription) is not a host name or address" }
        if let port, !(1...65535).contains(port) { return "\(name).port \(port) is not a port (1 to 65535)" }
        if !isHost(connectHost) {
            return "\(name).connectHost \(connectHost.debugDescription) is not a host name or address"
        }
        if !(1...65535).contains(connectPort) {
            return "\(name).connectPort \(connectPort) is not a port (1 to 65535)"
        }
        return nil
    }
}
