#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The proxies an environment names, read by curl's rules: set
/// ``ConnectConfiguration/proxiesFromEnvironment`` to one to send requests through them.
///
/// Connect reads no proxy variable unless asked, so that a client behaves the same wherever it
/// runs. Asked, it reads them once, when the value is made, as the `curl` command would on every
/// request:
///
/// | Request | Variables, the first one set wins |
/// |---|---|
/// | `http://` | `http_proxy`, then `all_proxy`, `ALL_PROXY` |
/// | `https://` | `https_proxy`, `HTTPS_PROXY`, then `all_proxy`, `ALL_PROXY` |
///
/// `HTTP_PROXY` in capitals is never read: a CGI program gets a request's `Proxy` header as
/// `HTTP_PROXY`, so whoever sends the request would choose the proxy ("httpoxy"). A variable set
/// to nothing counts as unset. `no_proxy` (else `NO_PROXY`) lists the hosts reached directly,
/// as ``ProxyConfiguration/bypassHosts`` does: `*` for every host, a domain for itself and its
/// subdomains, an IP address or a CIDR range (libcurl matches them).
///
/// A proxy is `[scheme://][user:password@]host[:port]`; without a scheme it is an HTTP proxy,
/// and without a port libcurl uses 1080. A variable Connect cannot use (a scheme other than
/// `http`, `https`, `socks4`, `socks4a`, `socks5` or `socks5h`, no host, a port that is not one)
/// fails each request that would go through it with ``ConnectError/invalidRequest(_:)`` naming
/// the variable, before anything is sent.
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.proxiesFromEnvironment = EnvironmentProxies()
/// ```
public struct EnvironmentProxies: Sendable, Hashable {
    /// A proxy variable that is set: its name and value, and why the value cannot name a proxy
    /// (read once, not for every request).
    struct Variable: Sendable, Hashable {
        let name: String
        let value: String
        let problem: String?

        init(name: String, value: String) {
            self.name = name
            self.value = value
            problem = EnvironmentProxies.problem(with: value)
        }
    }

    /// The variable `http://` requests go through, if any.
    let http: Variable?
    /// The variable `https://` requests go through, if any.
    let https: Variable?
    /// `no_proxy` (else `NO_PROXY`): the hosts reached directly, in libcurl's form.
    let bypassList: String

    /// Reads the proxy variables of `environment`, the process's own by default.
    public init(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        func first(_ names: [String]) -> Variable? {
            for name in names {
                if let value = environment[name], !value.isEmpty { return Variable(name: name, value: value) }
            }
            return nil
        }
        let all = ["all_proxy", "ALL_PROXY"]
        http = first(["http_proxy"] + all)
        https = first(["https_proxy", "HTTPS_PROXY"] + all)
        bypassList = first(["no_proxy", "NO_PROXY"])?.value ?? ""
    }

    /// The proxy named for `http://` requests, as it was set.
    public var httpProxy: String? { http?.value }
    /// The proxy named for `https://` requests, as it was set.
    public var httpsProxy: String? { https?.value }
    /// The hosts reached directly (`no_proxy`, else `NO_PROXY`), as it was set; empty when unset.
    public var noProxy: String { bypassList }

    /// The variable a request to a URL of this scheme goes through.
    func variable(forHTTPS isHTTPS: Bool) -> Variable? {
        isHTTPS ? https : http
    }

    /// The proxy schemes libcurl speaks.
    static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Why `value` cannot name a proxy, or `nil` if it can: `[scheme://][userinfo@]host[:port][/]`.
    static func problem(with value: String) -> String? {
        if value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return "contains a space or a control character" }
        var rest = Substring(value)
        if let separator = rest.firstRange(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard schemes.contains(scheme) else {
                return "names the scheme \"\(scheme)\", not one of \(schemes.sorted().joined(separator: ", "))"
            }
            rest = rest[separator.upperBound...]
        }
        // The authority ends at the path, if any (libcurl ignores a proxy's path).
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let host: Substring
        var port: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return "has an IPv6 address without its closing \"]\"" }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "has more after its IPv6 address than a port" }
                port = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        if host.isEmpty { return "names no host" }
        if let port {
            guard port.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(port),
                (1...65_535).contains(number)
            else {
                return "has the port \"\(port)\", not a number from 1 to 65535"
            }
        }
        return nil
    }

    /// Why a request to a URL of this scheme cannot go through its variable's proxy, naming the
    /// variable, or `nil`.
    func problem(forHTTPS isHTTPS: Bool) -> String? {
        guard let variable = variable(forHTTPS: isHTTPS), let problem = variable.problem else {
            return nil
        }
        return "configuration.proxiesFromEnvironment: the environment variable \(variable.name) \(problem)"
    }
}
