import ConnectFutures
import Tracing

/// One hop of an exchange: its request, and the step that handles the response to it, the final
/// one's output made by `finish` or the next hop sent (see ``RedirectFollower``).
///
/// A value held in the step itself (``ValueTransform``): a closure capturing the same would
/// allocate a context for every request.
struct RedirectHop<Finish: ResponseFinish>: ValueTransform {
    let follower: RedirectFollower
    let request: Request
    /// What each hop's transfer does with its response besides returning it.
    let options: TransferOptions?
    /// Redirects followed before this hop.
    let hops: Int
    /// Times the exchange was sent again before this attempt (retries), for tracing.
    let resends: Int
    /// When the exchange started: its timeout, and the final response's total time, count from
    /// then.
    let started: MonotonicInstant
    /// When the whole exchange times out; worked out only once a redirect comes.
    let deadline: MonotonicInstant?
    /// Where every hop's response is handled, when given.
    let context: FutureContext?
    /// The caller's service context when the exchange started, when its hops are traced: the
    /// spans' parent.
    let traceParent: ServiceContext?
    let finish: Finish

    /// What this hop's span needs, when the exchange is traced.
    var trace: HopTrace? {
        traceParent.map { HopTrace(parent: $0, resendCount: resends + hops) }
    }

    func proceed(with response: Response) throws -> ValueOrFuture<Finish.Output> {
        // The status first: most responses are not redirects, and reading the follower's
        // sensitive headers for the call retains them.
        guard RedirectFollower.isRedirect(response.statusCode),
            let proposed = RedirectFollower.redirect(
                for: response, of: request, sensitiveHeaders: follower.sensitiveHeaders)
        else {
            return .value(
                try finish.make(
                    from: hops == 0 ? response : RedirectFollower.counting(response, hops: hops, since: started)))
        }
        return try follower.follow(proposed, from: response, of: self)
    }
}
