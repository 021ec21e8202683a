import ConnectFutures

/// A hop whose request the cache let go out: the step that settles its response with the cache
/// (``ResponseCache/settle(_:of:)``), then runs the hop. Held in the step the transfer completes,
/// as ``RedirectHop`` is, so a request through the cache costs the plain path's one step.
struct CachedHop<Finish: ResponseFinish>: ValueTransform {
    let hop: RedirectHop<Finish>
    let cache: ResponseCache
    let pending: ResponseCache.PendingResponse

    func proceed(with response: Response) throws -> ValueOrFuture<Finish.Output> {
        switch cache.settle(response, of: pending) {
        case .response(let answer):
            return try hop.proceed(with: answer)
        case .refetch:
            // A 304 for another representation: the whole response again, then the hop.
            let refetched = cache.exchange(pending.request, settledWith: cache.refetching(pending)) { [hop] in
                hop.follower.chain.carry($0, options: hop.options)
            }
            return .future((hop.context.map { refetched.following($0) } ?? refetched).then(hop))
        }
    }
}
