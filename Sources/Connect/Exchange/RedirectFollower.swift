internal import ConnectWire
import ConnectFutures
import Tracing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Follows redirects above the transport, within one deadline for all the hops: each hop goes
/// through the client's ``HopChain`` (tracing, the cache, the transport), and its response comes
/// back to the hop's step (``RedirectHop``), which follows the next redirect or finishes.
///
/// An object, like the ``ExchangePolicy`` that holds it: each hop's step captures it with one
/// retain.
final class RedirectFollower: Sendable {
    /// What each hop goes through on its way to the server.
    let chain: HopChain
    let maximumRedirects: Int
    let handler: (any RedirectHandler)?
    /// Withheld from another origin.
    let sensitiveHeaders: SensitiveHeaders
    /// The time all the hops may take together, unless a request sets its own.
    let timeout: Duration

    init(
        chain: HopChain, maximumRedirects: Int, handler: (any RedirectHandler)?, sensitiveHeaders: SensitiveHeaders,
        timeout: Duration
    ) {
        self.chain = chain
        self.maximumRedirects = maximumRedirects
        self.handler = handler
        self.sensitiveHeaders = sensitiveHeaders
        self.timeout = timeout
    }

    /// Sends `request` and follows its redirects; the final response carries the number of hops.
    ///
    /// - Parameters:
    ///   - started: when the exchange started (before adapters ran, on the middleware path):
    ///     the request's timeout counts from then. Now, by default.
    ///   - context: when given, every hop's response is handled under it (on its callback queue),
    ///     whatever queue the transport completes on.
    ///   - finish: applied to the final response in the same step, e.g. the status validation:
    ///     one step less per request than chaining it after.
    ///   - attempt: the attempt this is, from 1: a retry's hops are traced as resends.
    ///   - traceParent: the spans' parent, when the client traces (`nil` otherwise).
    ///   - options: what every hop's transfer does with its response besides returning it.
    func send<Finish: ResponseFinish>(
        _ request: Request,
        options: TransferOptions?,
        started: MonotonicInstant? = nil,
        attempt: Int = 1,
        traceParent: ServiceContext? = nil,
        context: FutureContext?,
        finish: consuming Finish
    ) -> Future<Finish.Output> {
        let resends = attempt - 1
        guard let started else {
            // The transport's own timeout for the first hop is the whole budget: no copy of the
            // request to set it, and the deadline is only worked out if a redirect comes.
            return chain.send(
                RedirectHop(
                    follower: self, request: request, options: options, hops: 0, resends: resends,
                    started: MonotonicInstant.now, deadline: nil,
                    context: context, traceParent: traceParent, finish: finish))
        }
        let budget = request.timeout ?? timeout
        let deadline = started + budget
        do {
            return chain.send(
                RedirectHop(
                    follower: self, request: try Self.request(request, within: deadline, budget: budget),
                    options: options, hops: 0, resends: resends,
                    started: started, deadline: deadline, context: context, traceParent: traceParent, finish: finish))
        } catch {
            return context.map { Future(result: .failure(error), context: $0) } ?? Future(error: error)
        }
    }

    /// `send(_:options:started:attempt:traceParent:context:finish:)` with the final response as it is.
    func send(
        _ request: Request, options: TransferOptions?, started: MonotonicInstant? = nil, attempt: Int = 1,
        traceParent: ServiceContext? = nil
    ) -> Future<Response> {
        send(
            request, options: options, started: started, attempt: attempt, traceParent: traceParent, context: nil,
            finish: UncheckedFinish())
    }

    /// The next hop of an exchange whose `response` to `hop`'s request proposes a redirect:
    /// refused, ended at the limit, or sent. Out of line: most responses are the final one, and
    /// the code every response runs stays short.
    @inline(never)
    func follow<Finish: ResponseFinish>(
        _ proposed: Request, from response: Response, of hop: RedirectHop<Finish>
    ) throws -> ValueOrFuture<Finish.Output> {
        let request = hop.request
        guard hop.hops < maximumRedirects else {
            if maximumRedirects == 0 { return .value(try hop.finish.make(from: response)) }
            throw ConnectError.transport(
                TransportFailure(
                    kind: .tooManyRedirects, message: "Maximum (\(maximumRedirects)) redirects followed",
                    requestSent: true))
        }
        if Self.isDowngrade(from: request.url, to: proposed.url),
            handler?.allowsInsecureRedirect(response, of: request, to: proposed) != true
        {
            throw ConnectError.transport(
                TransportFailure(
                    kind: .insecureRedirect,
                    message:
                        "Refused a redirect from \(DebugLog.text(of: request.url, redacting: .default)) to \(DebugLog.text(of: proposed.url, redacting: .default)): "
                        + "it would send the request in cleartext (allow it with RedirectHandler.allowsInsecureRedirect)",
                    requestSent: true))
        }
        let next: Request
        switch handler?.redirect(response, of: request, to: proposed) ?? .follow {
        case .follow: next = proposed
        case .followModified(let modified): next = modified
        case .refuse:
            return .value(try hop.finish.make(from: Self.counting(response, hops: hop.hops, since: hop.started)))
        }
        try next.validate()
        if next.body?.isSpent == true {
            throw ConnectError.transport(
                TransportFailure(
                    kind: .bodyNotReplayable,
                    message:
                        "The redirect to \(DebugLog.text(of: next.url, redacting: .default)) must send the body again, and it is a one-time stream that was already read",
                    requestSent: true))
        }
        let deadline = hop.deadline ?? hop.started + (request.timeout ?? timeout)
        return .future(
            chain.send(
                RedirectHop(
                    follower: self, request: try Self.request(next, within: deadline, budget: nil),
                    options: hop.options, hops: hop.hops + 1,
                    resends: hop.resends, started: hop.started, deadline: deadline, context: hop.context,
                    traceParent: hop.traceParent, finish: hop.finish)))
    }

    /// `request` with the time left before `deadline` as its timeout, or a timeout failure if
    /// none is left.
    static func request(
        _ request: Request, within deadline: MonotonicInstant, budget: Duration?
    ) throws(ConnectError) -> Request {
        let left = deadline - MonotonicInstant.now
        guard left > .zero else {
            let whole = budget.map { " of \($0.secondsAndMilliseconds)" } ?? ""
            throw .timedOut("the exchange took longer than its timeout\(whole), redirects included")
        }
        var limited = request
        limited.timeout = left
        return limited
    }

    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// The request a redirect response proposes, or `nil` if it is not a redirect to follow.
    static func redirect(
        for response: Response, of request: Request, sensitiveHeaders: SensitiveHeaders = .default
    ) -> Request? {
        guard Self.isRedirect(response.statusCode),
            let location = response.header("Location"),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme, Request.isHTTPScheme(scheme) || Request.isUnixSocketScheme(scheme)
        else { return nil }

        var next = request
        next.url = target
        let keepsBody =
            response.statusCode == 307 || response.statusCode == 308
            || ((response.statusCode == 301 || response.statusCode == 302) && request.method != .post)
        if !keepsBody {
            if request.method != .head { next.method = .get }
            next.body = nil
            next.headers.removeAll { $0.hasName("Content-Type") || $0.hasName("Content-Length") }
        }
        if !sameOrigin(request.url, target) {
            next.headers.removeAll { sensitiveHeaders.contains($0.name) }
            if next.credentials != nil { next.credentials = nil }
            // The socket is where the first origin is served; another origin is reached by its URL.
            if next.unixSocketPath != nil { next.unixSocketPath = nil }
        }
        return next
    }

    /// From https to plain http (either over a Unix domain socket too).
    static func isDowngrade(from source: URL, to target: URL) -> Bool {
        isHTTPS(source) && !isHTTPS(target)
    }

    /// The same scheme, host and port; for a Unix domain socket URL, the same socket path, its
    /// case kept.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        let scheme = a.scheme?.lowercased()
        guard scheme == b.scheme?.lowercased() else { return false }
        if let scheme, Request.isUnixSocketScheme(scheme) {
            return a.host(percentEncoded: false) == b.host(percentEncoded: false)
        }
        return a.host?.lowercased() == b.host?.lowercased() && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    static func defaultPort(_ url: URL) -> Int {
        isHTTPS(url) ? 443 : 80
    }

    /// `https` or `https+unix`.
    private static func isHTTPS(_ url: URL) -> Bool {
        guard let scheme = url.scheme else { return false }
        return HeaderText.equalIgnoringASCIICase(scheme, "https")
            || HeaderText.equalIgnoringASCIICase(scheme, "https+unix")
    }

    /// `response` with the hops counted and the time measured from the first request.
    static func counting(_ response: Response, hops: Int, since started: MonotonicInstant) -> Response {
        var metrics = response.metrics
        metrics.redirectCount = hops
        metrics.total = MonotonicInstant.now - started
        return response.with(metrics: metrics)
    }
}
