import ConnectFutures
import Tracing

/// One request's whole way through Connect: adapt → send → redirect → validate → intercept →
/// retry → complete, for plain requests, uploads, downloads and streams alike.
///
/// ``Connect`` builds the request and hands it here with the policy its connector asks for.
/// The exchange owns the attempt count (``runThroughMiddleware(_:)``) and each attempt's
/// deadline: the timeout counts from the start of an attempt, adapters included, through every
/// redirect hop (``RedirectFollower``).
///
/// With the empty middleware there are no adapters, interceptors, retriers or monitors to run,
/// so the same steps run as future steps without a task: send and follow redirects, then
/// validate and hand the response to `output` in the redirect step itself, the fewest steps per
/// request.
struct Exchange: Sendable {
    let client: SharedClientState
    /// Accepted status codes, the error handler, the redirect rules.
    let policy: ExchangePolicy
    /// `debugResponse` output, when asked for.
    let log: DebugLog?
    /// What the transfer does with the response besides returning it: a file, progress, a
    /// stream (see ``TransferOptions``); `nil` for a plain request.
    let options: TransferOptions?
    /// The caller's service context when the exchange started, when the client traces: its
    /// spans' parent.
    let traceParent: ServiceContext?

    /// Runs `request` (already validated) and hands the accepted response to `output`.
    func run<Output: Sendable>(_ request: Request, output: @escaping @Sendable (Response) -> Output) -> Future<Output> {
        guard _fastPath(!client.runsMiddleware && log == nil) else {
            return runWithMiddlewareOrLog(request, output: output)
        }
        return policy.redirects.send(
            request, options: options, traceParent: traceParent, context: client.context,
            finish: CheckedFinish(policy: policy, request: request, output: output))
    }

    /// ``run(_:output:)`` through the middleware, or with `debugResponse` output. Out of line:
    /// the plain exchange is the one most requests run.
    @inline(never)
    private func runWithMiddlewareOrLog<Output: Sendable>(
        _ request: Request, output: @escaping @Sendable (Response) -> Output
    ) -> Future<Output> {
        let exchange: Future<Response>
        if client.runsMiddleware {
            exchange = runThroughMiddleware(request)
        } else {
            log?.request(request)
            exchange = policy.redirects.send(
                request, options: options, traceParent: traceParent, context: client.context,
                finish: CheckedFinish(policy: policy, request: request) { $0 })
        }
        guard let log else { return exchange.map(output) }
        return exchange.always { log.outcome($0, of: request) }.map(output)
    }

    static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ConnectError) == .cancelled
    }
}
