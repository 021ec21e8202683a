import ConnectFutures
import Tracing

/// What every hop of an exchange passes through between the redirect follower and the server,
/// as an ordered list of stages declared in one place per client
/// (``init(transport:tracer:cache:cachePolicy:coalescesIdenticalRequests:timeout:)``): a hop's
/// request goes through them in order on its way out, and its response back through them in
/// reverse, to the hop's step (``RedirectHop``: the next redirect, or the exchange's output).
///
/// Today's stages: tracing (a client span per hop), the cache (answers, revalidates, stores),
/// then the carrier (the transport). A new per-hop stage is a case of ``Stage``, placed in the
/// declaration, with its clause in ``response(to:options:trace:from:)``. In front of them all,
/// a request that coalesces shares one trip through the stages with identical requests in
/// flight (``RequestCoalescer``): before tracing, whose headers differ per request, and before
/// the cache, which then sees one request and stores one answer.
///
/// Where the transport completes a hop's step itself (``StepCompletingCarrier``) and no stage
/// before the carrier needs the response first, the hop's step is handed to the carrier: the
/// response goes from the transfer straight into the hop's step, with no future between. The
/// cache as the last stage settles its response in that step too (``CachedHop``). Every other
/// arrangement runs the stages through futures and then the hop's step.
///
/// An object: each hop's step captures it with one retain.
final class HopChain: Sendable {
    /// One stage of the chain.
    enum Stage: Sendable {
        /// A client span per hop (see ``HopTracing``), under the exchange's trace parent.
        case tracing(HopTracing)
        /// Answered from, revalidated with, or stored in the cache, as the request's policy says.
        case cache(ResponseCache, CachePolicy)
    }

    /// The stages, in the order a request passes them.
    let stages: [Stage]
    let transport: any Transport
    /// `transport` when it carries a request's ``TransferOptions`` (Connect's own transports).
    private let carrier: (any TransferCarrier)?
    /// `transport` when it runs a hop's step where the hop's transfer completes.
    private let stepCompleting: (any StepCompletingCarrier)?
    /// The flights of identical requests that share one trip through the stages.
    let coalescer: RequestCoalescer
    /// Whether a request coalesces unless it says otherwise
    /// (``ConnectConfiguration/coalescesIdenticalRequests``).
    private let coalescesByDefault: Bool
    /// The tracing stage, if any: a request that shares another's trip has a span of its own.
    private let tracing: HopTracing?

    /// The chain of a client: tracing when a tracer is set, the cache when the configuration
    /// has one, and `transport` at the end; coalescing in front for the requests that ask for it
    /// (`coalescesIdenticalRequests` for those that do not say), whose callers time out after
    /// `timeout` unless they have a timeout of their own.
    init(
        transport: any Transport, tracer: (any Tracer)?, cache: ResponseCache?, cachePolicy: CachePolicy,
        coalescesIdenticalRequests: Bool, timeout: Duration
    ) {
        let tracing = tracer.map(HopTracing.init(tracer:))
        var stages: [Stage] = []
        if let tracing { stages.append(.tracing(tracing)) }
        if let cache { stages.append(.cache(cache, cachePolicy)) }
        self.stages = stages
        self.tracing = tracing
        self.transport = transport
        carrier = transport as? any TransferCarrier
        stepCompleting = transport as? any StepCompletingCarrier
        coalescer = RequestCoalescer(defaultTimeout: timeout)
        coalescesByDefault = coalescesIdenticalRequests
    }

    /// Sends `hop`'s request through the stages; the hop is then the step that handles its
    /// response. Most responses are the final one: their output is handed back as a value, with
    /// no completed future to allocate; only a redirect to follow returns a future. Inlined into
    /// the follower's sends: a call between the two would copy the hop once more per request.
    @inline(__always)
    func send<Finish: ResponseFinish>(_ hop: consuming RedirectHop<Finish>) -> Future<Finish.Output> {
        if _slowPath(hop.request.coalescesIdenticalRequests ?? coalescesByDefault),
            let key = CoalescingKey(hop.request, options: hop.options)
        {
            return send(hop, sharing: key)
        }
        if let stepCompleting, hop.context == nil || hop.context === stepCompleting.context {
            if stages.isEmpty {
                let request = hop.request
                let options = hop.options
                let (step, future) = PendingStep.making(context: stepCompleting.context, transform: hop)
                stepCompleting.send(consume request, options: consume options, completing: consume step)
                return future
            }
            if stages.count == 1, case .cache(let cache, let policy) = stages[0] {
                return send(hop, through: cache, policy: policy, completingOn: stepCompleting)
            }
        }
        var sent = response(to: hop.request, options: hop.options, trace: hop.trace, from: 0)
        if let context = hop.context { sent = sent.following(context) }
        return sent.then(hop)
    }

    /// The response to `request` through the stages from `index` on, then the carrier.
    func response(to request: Request, options: TransferOptions?, trace: HopTrace?, from index: Int) -> Future<Response>
    {
        guard index < stages.count else { return carry(request, options: options) }
        switch stages[index] {
        case .tracing(let tracing):
            guard let trace else { return response(to: request, options: options, trace: nil, from: index + 1) }
            var traced = request
            let span = tracing.start(&traced, parent: trace.parent, resendCount: trace.resendCount)
            return response(to: traced, options: options, trace: trace, from: index + 1)
                .always { HopTracing.end(span, with: $0) }
        case .cache(let cache, let policy):
            return cache.respond(to: request, options: options, policy: policy) { [self] in
                response(to: $0, options: options, trace: trace, from: index + 1)
            }
        }
    }

    /// `hop` through the cache, the chain's last stage, on a transport that completes steps: a
    /// request the cache sends (one it does not answer, or a validation no failure is caught
    /// for) goes out in the step that settles its response and runs the hop, as a plain
    /// request's does; the rest go through futures. Out of line: most clients have no cache.
    @inline(never)
    private func send<Finish: ResponseFinish>(
        _ hop: consuming RedirectHop<Finish>, through cache: ResponseCache, policy: CachePolicy,
        completingOn stepCompleting: any StepCompletingCarrier
    ) -> Future<Finish.Output> {
        let hop = copy hop
        let plan = cache.plan(hop.request, options: hop.options, policy: policy)
        if case .send(let request, let pending) = plan, !pending.standsInForFailures {
            let (step, future) = PendingStep.making(
                context: stepCompleting.context, transform: CachedHop(hop: hop, cache: cache, pending: pending))
            stepCompleting.send(request, options: hop.options, completing: step)
            return future
        }
        var sent = cache.carryOut(plan) { [self] in carry($0, options: hop.options) }
        if let context = hop.context { sent = sent.following(context) }
        return sent.then(hop)
    }

    /// `hop` through the stages, or a share of the trip an identical request in flight takes
    /// through them. A caller that shares is traced as a span of its own, marked
    /// `connect.coalesced`, which sent nothing. Out of line: coalescing is opt-in.
    @inline(never)
    private func send<Finish: ResponseFinish>(
        _ hop: consuming RedirectHop<Finish>, sharing key: CoalescingKey
    ) -> Future<Finish.Output> {
        let hop = copy hop
        let trace = hop.trace
        var (sent, joined) = coalescer.response(to: hop.request, key: key) { [self] in
            response(to: hop.request, options: nil, trace: trace, from: 0)
        }
        if joined, let tracing, let trace {
            var traced = hop.request
            let span = tracing.start(&traced, parent: trace.parent, resendCount: trace.resendCount)
            span.attributes["connect.coalesced"] = true
            sent = sent.always { HopTracing.end(span, with: $0) }
        }
        if let context = hop.context { sent = sent.following(context) }
        return sent.then(hop)
    }

    /// `request` sent once with its `options`: the chain's last stage. A transport that carries
    /// plain requests only (one of the app's own) fails a request with options rather than lose
    /// its file or stream.
    func carry(_ request: Request, options: TransferOptions?) -> Future<Response> {
        if let carrier { return carrier.send(request, options: options) }
        guard options == nil else {
            return Future(
                error: ConnectError.invalidRequest(
                    "\(type(of: transport)) sends plain requests only: a download to a file, progress reports and a streamed response need Connect's own transport"
                ))
        }
        return transport.send(request)
    }
}

/// What a hop's span needs: the exchange's trace parent, and how many times the exchange was
/// sent before this hop (retries and redirects).
struct HopTrace: Sendable {
    let parent: ServiceContext
    let resendCount: Int
}
