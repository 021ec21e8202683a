/// A proxy for every request.
///
/// Only the proxy configured here is used: environment variables such as `http_proxy`,
/// `https_proxy`, `all_proxy` and `no_proxy` are not read, so a client behaves the same in every
/// environment it runs in.
///
/// ```swift
/// configuration.proxy = .http(host: "proxy.corp", port: 3128, username: "me", password: "secret")
/// configuration.proxy = .socks5(host: "127.0.0.1", port: 1080)
/// ```
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy, as libcurl takes it: `http://host:port`, `https://…`, `socks5://…`, or
    /// `socks5h://…` (host names resolved by the proxy).
    public var url: String
    /// The user name for the proxy, if it asks for credentials.
    public var username: String?
    /// The password for the proxy, if it asks for credentials.
    public var password: String?
    /// Hosts reached directly, e.g. `["localhost", ".internal.example.com"]`.
    public var bypassHosts: [String]
    /// The schemes the credentials may answer the proxy's challenge (`407` with
    /// `Proxy-Authenticate`) with: ``AuthenticationSchemes/basic`` by default, sent with the
    /// first request; ``AuthenticationSchemes/challenged`` (or `.digest`, `.ntlm`) waits for
    /// the proxy to ask and answers with the strongest it offers. With `.negotiate` among them,
    /// a proxy's Negotiate challenge is answered with the system's GSS-API credentials, no
    /// ``username`` needed.
    public var schemes: AuthenticationSchemes = .basic

    /// A proxy given as a URL string.
    public init(url: String, username: String? = nil, password: String? = nil, bypassHosts: [String] = []) {
        self.url = url
        self.username = username
        self.password = password
        self.bypassHosts = bypassHosts
    }

    /// An HTTP proxy.
    public static func http(
        host: String, port: Int, username: String? = nil, password: String? = nil
    ) -> ProxyConfiguration {
        ProxyConfiguration(url: "http://\(host):\(port)", username: username, password: password)
    }

    /// A SOCKS5 proxy; with `resolvesHostNames`, the proxy resolves host names (`socks5h`).
    public static func socks5(
        host: String, port: Int, username: String? = nil, password: String? = nil, resolvesHostNames: Bool = true
    ) -> ProxyConfiguration {
        ProxyConfiguration(
            url: "\(resolvesHostNames ? "socks5h" : "socks5")://\(host):\(port)", username: username, password: password
        )
    }
}
