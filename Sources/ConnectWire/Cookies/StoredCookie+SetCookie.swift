extension StoredCookie {
    /// The longest name and value together a cookie may have (RFC 6265bis §5.7: 4096 bytes).
    package static let largestNameAndValue = 4096

    /// The cookie a `Set-Cookie` header sets, received in the answer to a request for `host` and
    /// `path`, over a secure connection or not, at `now` (seconds since 1970); `nil` when the
    /// header is to be ignored (RFC 6265 §5.2 and §5.3, with RFC 6265bis's prefixes and limits):
    ///
    /// - no `=` in its first part, an empty name, or name and value over 4096 bytes;
    /// - a control character anywhere, or a tab inside the name, value, domain or path (the jar
    ///   keeps a cookie as one line of tab-separated fields);
    /// - a `Domain` the host is not within, or a single label such as `com` that is not the host
    ///   itself (Connect has no public suffix list; libcurl without libpsl has none either);
    /// - `Secure` from an answer that did not come over a secure connection;
    /// - a `__Secure-` name without `Secure`, a `__Host-` name without `Secure`, with a `Domain`,
    ///   or with a path other than `/`.
    ///
    /// `Max-Age` wins over `Expires`; a cookie that has expired already (to delete one) keeps an
    /// expiry in the past; with neither it is a session cookie. `expiry` reads an `Expires` date
    /// (libcurl's `curl_getdate` in the transport, as libcurl's own engine does).
    package init?(
        setCookie header: String, host: String, path requestPath: String, isSecure secure: Bool, now: Int64,
        expiry: (String) -> Int64?
    ) {
        guard !header.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
            return nil
        }
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = String(pair[..<equals].trimmingHTTPSpaces)
        let value = String(pair[pair.index(after: equals)...].trimmingHTTPSpaces)
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.largestNameAndValue,
            !name.contains("\t"), !value.contains("\t")
        else { return nil }

        var expires: Int64?
        var maxAge: Int64?
        var domainAttribute: String?
        var pathAttribute: String?
        var secureAttribute = false
        var httpOnly = false
        for attribute in parts.dropFirst() {
            let equals = attribute.firstIndex(of: "=")
            let key = attribute[..<(equals ?? attribute.endIndex)].trimmingHTTPSpaces.lowercased()
            let argument = equals.map { String(attribute[attribute.index(after: $0)...].trimmingHTTPSpaces) } ?? ""
            switch key {
            case "expires":
                if let date = expiry(argument) { expires = date }
            case "max-age":
                guard let first = argument.first, first == "-" || first.isASCIIDigit,
                    argument.dropFirst().allSatisfy(\.isASCIIDigit)
                else { continue }
                let seconds = Int64(argument) ?? (first == "-" ? Int64.min : Int64.max)
                maxAge = seconds <= 0 ? 1 : (now > Int64.max - seconds ? Int64.max : now + seconds)
            case "domain":
                let domain = argument.drop { $0 == "." }.lowercased()
                // An empty Domain is ignored (§5.2.3).
                if !domain.isEmpty { domainAttribute = domain }
            case "path":
                pathAttribute = argument.hasPrefix("/") ? argument : nil
            case "secure":
                secureAttribute = true
            case "httponly":
                httpOnly = true
            default:
                break
            }
        }

        let host = host.lowercased()
        var cookieDomain = host
        var includesSubdomains = false
        if let domain = domainAttribute, domain != host {
            guard !domain.contains("\t"), domain.contains("."), Self.domainMatches(host: host, domain: domain),
                !Self.isIPAddress(domain)
            else { return nil }
            cookieDomain = domain
            includesSubdomains = true
        }
        let cookiePath = pathAttribute ?? Self.defaultPath(for: requestPath)
        guard !cookiePath.contains("\t"), !secureAttribute || secure else { return nil }
        if name.hasPrefix("__Secure-"), !secureAttribute { return nil }
        if name.hasPrefix("__Host-"), !secureAttribute || domainAttribute != nil || cookiePath != "/" { return nil }

        // 0 means a session cookie to the jar: a date at the epoch is one second after it.
        let expiresAt = maxAge ?? expires.map { max($0, 1) } ?? 0
        self.init(
            domain: cookieDomain, includesSubdomains: includesSubdomains, path: cookiePath, isSecure: secureAttribute,
            expires: expiresAt, name: name, value: value, isHTTPOnly: httpOnly)
    }
}
