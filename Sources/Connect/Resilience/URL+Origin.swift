#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension URL {
    /// The origin a request to this URL goes to, as a key: scheme, host and port, lowercased,
    /// the port given even when it is the scheme's default (`https://example.com:443`).
    var originKey: String {
        let scheme = scheme?.lowercased() ?? "http"
        let host = host(percentEncoded: true)?.lowercased() ?? ""
        let port = port ?? (scheme == "https" || scheme == "wss" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }
}
