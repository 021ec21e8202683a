#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether, and where, cookies from responses are kept and sent back (libcurl's cookie engine).
///
/// ```swift
/// configuration.cookies = .inMemory                       // for this Connect's lifetime
/// configuration.cookies = .file(appSupport.appendingPathComponent("cookies.txt"))   // across launches
/// ```
/// Off by default: an API client rarely wants cookies, and a shared jar is state to reason about.
/// Cookies are shared by every request of one ``Connect`` and follow the usual rules (domain,
/// path, expiry, `Secure`).
public enum CookieStorage: Sendable, Hashable {
    /// No cookies are stored or sent (unless a request sets a `Cookie` header itself).
    case none
    /// Cookies are kept in memory for the client's lifetime.
    case inMemory
    /// Cookies are loaded from this file (Netscape format) and written back after each response.
    case file(URL)
}
