#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which stored responses an unsafe request makes stale (RFC 9111 §4.4): a decision value,
/// tested with tables.
enum CacheInvalidation {
    /// The methods that do not change the server's state (RFC 9110 §9.2.1).
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The URLs whose stored responses are dropped after a response with `status` and
    /// `headers` to a `method` request for `url`: none for a safe method or an error status;
    /// else the request's URL, and the `Location` and `Content-Location` URLs when they have
    /// the request's origin (§4.4: a different origin could invalidate what it does not own).
    static func invalidatedURLs(method: String, url: URL, status: Int, headers: [HTTPHeader]) -> [URL] {
        guard !safeMethods.contains(method.uppercased()), (200..<400).contains(status) else { return [] }
        var urls = [url]
        for name in ["Location", "Content-Location"] {
            guard let value = headers.value(for: name), let target = URL(string: value, relativeTo: url)?.absoluteURL,
                sameOrigin(target, url), !urls.contains(target)
            else { continue }
            urls.append(target)
        }
        return urls
    }

    /// The same scheme, host and port (RFC 6454), with the scheme's default port filled in.
    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return (scheme, host, port)
        }
        guard let a = origin(first), let b = origin(second) else { return false }
        return a == b
    }
}
