import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a handshake goes, as cookies see it: its host, its path, and whether the connection is
/// secure (`https`, which a `wss` URL became).
struct CookieTarget {
    let host: String
    let path: String
    let isSecure: Bool

    init?(url: String) {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            return nil
        }
        // An IPv6 literal keeps its brackets in `host` on some platforms.
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        isSecure = components.scheme?.lowercased() == "https"
    }

    /// Seconds since 1970, as cookie expiry dates count.
    static func now() -> Int64 { Int64(time(nil)) }

    /// An `Expires` date read as libcurl reads it for its own cookie engine.
    static func date(_ text: String) -> Int64? {
        let seconds = curl_getdate(text, nil)
        return seconds == -1 ? nil : Int64(seconds)
    }
}
