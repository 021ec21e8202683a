import ConnectFutures
import Foundation

/// What to do with one redirect.
public enum RedirectDecision: Sendable {
    /// Follow it with the proposed request.
    case follow
    /// Follow it with this request instead (e.g. another host, extra headers).
    case followModified(Request)
    /// Do not follow it: the redirect response itself is the answer (a 3xx goes to the error
    /// handler unless the accepted status codes include it).
    case refuse
}

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
/// `Authorization`, `Cookie` and `Proxy-Authorization` are dropped when the scheme, host or
/// port changes, and only http and https are followed. ``ConnectConfiguration/maximumRedirects``
/// bounds the hops.
public protocol RedirectHandler: Sendable {
    /// The decision for `response`, a redirect of `request`, which would be followed with `proposed`.
    func redirect(_ response: Response, of request: Request, to proposed: Request) -> RedirectDecision
}

/// Follows redirects above the transport.
struct RedirectFollower: Sendable {
    let transport: any Transport
    let maximumRedirects: Int
    let handler: (any RedirectHandler)?

    static let credentialHeaders = ["authorization", "cookie", "proxy-authorization"]

    /// Sends `request` and follows its redirects; the final response carries the number of hops.
    ///
    /// - Parameters:
    ///   - context: when given, every hop's response is handled under it (on its callback queue),
    ///     whatever queue the transport completes on.
    ///   - finish: applied to the final response in the same step, e.g. the status validation:
    ///     one step less per request than chaining it after.
    func send<Output: Sendable>(
        _ request: Request,
        context: FutureContext?,
        finish: @escaping @Sendable (Response) throws -> Output
    ) -> Future<Output> {
        send(request, hops: 0, started: ContinuousClock.now, context: context, finish: finish)
    }

    /// `send(_:context:finish:)` with the final response as it is.
    func send(_ request: Request) -> Future<Response> {
        send(request, context: nil) { $0 }
    }

    private func send<Output: Sendable>(
        _ request: Request, hops: Int, started: ContinuousClock.Instant, context: FutureContext?,
        finish: @escaping @Sendable (Response) throws -> Output
    ) -> Future<Output> {
        var sent = transport.send(request)
        if let context { sent = sent.following(context) }
        return sent.flatMap { response -> Future<Output> in
            guard let proposed = Self.redirect(for: response, of: request) else {
                return Future(value: try finish(hops == 0 ? response : Self.counting(response, hops: hops, since: started)))
            }
            guard hops < maximumRedirects else {
                if maximumRedirects == 0 { return Future(value: try finish(response)) }
                throw ConnectError.transport(code: 47, message: "Maximum (\(maximumRedirects)) redirects followed", requestSent: true)
            }
            let next: Request
            switch handler?.redirect(response, of: request, to: proposed) ?? .follow {
            case .follow: next = proposed
            case .followModified(let modified): next = modified
            case .refuse: return Future(value: try finish(Self.counting(response, hops: hops, since: started)))
            }
            try next.validate()
            return send(next, hops: hops + 1, started: started, context: context, finish: finish)
        }
    }

    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// The request a redirect response proposes, or `nil` if it is not a redirect to follow.
    static func redirect(for response: Response, of request: Request) -> Request? {
        guard Self.isRedirect(response.statusCode),
            let location = response.header("Location"),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }

        var next = request
        next.url = target
        let keepsBody = response.statusCode == 307 || response.statusCode == 308
            || ((response.statusCode == 301 || response.statusCode == 302) && request.method != .post)
        if !keepsBody {
            if request.method != .head { next.method = .get }
            next.body = nil
            next.headers.removeAll { $0.hasName("Content-Type") || $0.hasName("Content-Length") }
        }
        if !sameOrigin(request.url, target) {
            next.headers.removeAll { header in credentialHeaders.contains(header.name.lowercased()) }
        }
        return next
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    static func defaultPort(_ url: URL) -> Int {
        url.scheme?.lowercased() == "https" ? 443 : 80
    }

    /// `response` with the hops counted and the time measured from the first request.
    static func counting(_ response: Response, hops: Int, since started: ContinuousClock.Instant) -> Response {
        var metrics = response.metrics
        metrics.redirectCount = hops
        metrics.total = ContinuousClock.now - started
        return response.with(metrics: metrics)
    }
}
