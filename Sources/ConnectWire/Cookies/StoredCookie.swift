/// A cookie as the cookie storage keeps it (RFC 6265 §5.3): the line format libcurl's cookie
/// engine lists and loads (`CURLINFO_COOKIELIST`, `CURLOPT_COOKIELIST`, the Netscape format), and
/// whether it goes with a request (§5.4).
///
/// For the one request libcurl does not send itself, the WebSocket handshake: Connect reads the
/// jar's cookies for it and stores the cookies of its answer, by the same rules as libcurl's
/// engine. A decision value, tested with tables and fuzzed (`Fuzz/Sources/FuzzSetCookie`).
package struct StoredCookie: Equatable, Sendable {
    /// The host it was set by (host-only), or the domain it was set for, lowercased, without a
    /// leading dot.
    package var domain: String
    /// Whether it goes to the domain's subdomains too (a `Domain` attribute set it).
    package var includesSubdomains: Bool
    package var path: String
    /// Whether it goes over secure connections only.
    package var isSecure: Bool
    /// When it expires, in seconds since 1970; 0 for a session cookie.
    package var expires: Int64
    package var name: String
    package var value: String
    /// Whether it was marked `HttpOnly` (kept, as libcurl keeps it; it changes nothing for a
    /// client without scripts).
    package var isHTTPOnly: Bool

    /// Reads one line of libcurl's cookie list: domain, subdomains (`TRUE`/`FALSE`), path,
    /// secure, expiry, name and value, separated by tabs; `#HttpOnly_` before an HttpOnly
    /// cookie's domain. `nil` for a line in any other shape.
    package init?(netscapeLine line: Substring) {
        var domain = line
        let isHTTPOnly = domain.hasPrefix("#HttpOnly_")
        if isHTTPOnly { domain = domain.dropFirst("#HttpOnly_".count) }
        let fields = domain.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 7, let expires = Int64(fields[4]) else { return nil }
        self.domain = String(fields[0].drop { $0 == "." }).lowercased()
        includesSubdomains = fields[1] == "TRUE"
        path = String(fields[2])
        isSecure = fields[3] == "TRUE"
        self.expires = expires
        name = String(fields[5])
        value = String(fields[6])
        self.isHTTPOnly = isHTTPOnly
    }

    package init(
        domain: String, includesSubdomains: Bool, path: String, isSecure: Bool, expires: Int64, name: String,
        value: String, isHTTPOnly: Bool = false
    ) {
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.path = path
        self.isSecure = isSecure
        self.expires = expires
        self.name = name
        self.value = value
        self.isHTTPOnly = isHTTPOnly
    }

    /// The cookie as a line libcurl loads.
    package var netscapeLine: String {
        [
            (isHTTPOnly ? "#HttpOnly_" : "") + (includesSubdomains ? "." : "") + domain,
            includesSubdomains ? "TRUE" : "FALSE", path, isSecure ? "TRUE" : "FALSE", String(expires), name, value
        ].joined(separator: "\t")
    }

    /// Whether it goes with a request to `host` and `path` (§5.4): the host matches its domain
    /// (or is it, for a host-only cookie), the path is within its path, the connection is
    /// secure if it must be, and it has not expired at `now` (seconds since 1970).
    package func matches(host: String, path requestPath: String, isSecure secure: Bool, now: Int64) -> Bool {
        guard !isSecure || secure, expires == 0 || expires > now else { return false }
        let host = host.lowercased()
        let domainMatches =
            includesSubdomains
            ? Self.domainMatches(host: host, domain: domain) : host == domain
        return domainMatches && Self.pathMatches(requestPath: requestPath, cookiePath: path)
    }

    /// The `Cookie` header for a request: every matching cookie, those with longer paths first
    /// (§5.4 step 2), or `nil` when none matches.
    package static func cookieHeader(
        from cookies: [StoredCookie], host: String, path: String, isSecure: Bool, now: Int64
    ) -> String? {
        let matching = cookies.enumerated()
            .filter { $0.element.matches(host: host, path: path, isSecure: isSecure, now: now) }
            .sorted { ($0.element.path.count, -$0.offset) > ($1.element.path.count, -$1.offset) }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }

    /// §5.1.3: the host is the domain, or ends with `.domain` and is a name, not an address.
    package static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain), !isIPAddress(host) else { return false }
        return true
    }

    /// §5.1.4: the cookie's path is the request's, or a prefix of it that ends at a `/`.
    package static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// An IPv4 address in dotted form, or an IPv6 address (which has colons).
    package static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.allSatisfy(\.isASCIIDigit) }
    }

    /// §5.1.4's default path: the request path up to its last `/`, or `/`.
    package static func defaultPath(for requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let last = requestPath.lastIndex(of: "/"), last != requestPath.startIndex
        else { return "/" }
        return String(requestPath[..<last])
    }
}

extension Character {
    /// `0` to `9`, and no other digit.
    package var isASCIIDigit: Bool { asciiValue.map { (0x30...0x39).contains($0) } ?? false }
}
