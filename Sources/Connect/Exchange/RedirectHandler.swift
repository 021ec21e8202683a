import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decides about each redirect (ABNetworkKit's `taskWillPerformHTTPRedirection`).
///
/// ```swift
/// struct StayOnOurDomains: RedirectHandler {
///     func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision {
///         proposed.url.host?.hasSuffix("example.com") == true ? .follow : .refuse
///     }
/// }
/// configuration.redirectHandler = StayOnOurDomains()     // or per connector: `redirectHandler`
/// ```
/// Connect follows redirects itself, each hop a new request with the same settings, so TLS pins
/// apply to every host reached. The proposed request already follows the rules: 303 (and 301
/// or 302 after a POST) becomes a GET without a body, 307 and 308 keep the method and body,
/// the ``ConnectConfiguration/sensitiveHeaders`` are dropped when the scheme, host or port
/// changes, and only http and https are followed. ``ConnectConfiguration/maximumRedirects``
/// bounds the hops, and the configured timeout bounds them all together.
///
/// A redirect from https to http is refused unless ``allowsInsecureRedirect(_:of:to:)`` says
/// otherwise: it would send the request, and any body, in cleartext.
public protocol RedirectHandler: Sendable {
    /// The decision for `response`, a redirect of `request`, which would be followed with `proposed`.
    func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision

    /// Whether a redirect from https to http may be followed; asked before
    /// ``redirect(_:of:to:)``. `false` unless you implement it.
    func allowsInsecureRedirect(_ response: Response, of request: Request, to proposed: Request) -> Bool
}

extension RedirectHandler {
    public func allowsInsecureRedirect(_ response: Response, of request: Request, to proposed: Request) -> Bool {
        false
    }
}
