import ConnectFutures

/// What every exchange of one ``Connect`` shares: the transport, the middleware, the futures'
/// context, and the exchanges on the middleware path, which ``Connect/cancelAllRequests()``
/// must reach between transfers (adapting, backing off, waiting for a token refresh).
final class SharedClientState: Sendable {
    let transport: any Transport
    let middleware: any ConnectMiddlewareProtocol
    /// The middleware has steps to run; `false` for the empty middleware, whose exchanges take
    /// the fast path (see ``Exchange``). Decided once, not with a dynamic cast per request.
    let runsMiddleware: Bool
    /// Shared by every future the client returns: the callback queue, `.cancelled` as the
    /// cancellation error, decoding failures as `.decoding`.
    let context: FutureContext
    /// The middleware may change a request before it is sent (adapters or interceptors); `false`
    /// for a ``ConnectMiddleware`` with neither, whose attempts skip that step.
    let preparesRequests: Bool
    /// The counts of the middleware's ``RetryBudget``, for this client alone; `nil` without one.
    let retryBudget: RetryBudgetLedger?
    /// The circuits of the middleware's ``CircuitBreaker``, for this client alone; `nil` without one.
    let circuitBreaker: CircuitBreakerLedger?
    /// The latencies the middleware's ``Hedging`` measured, for this client alone; `nil` without it.
    let hedging: HedgingLedger?
    private let inFlight = Locked<(nextID: UInt64, exchanges: [UInt64: Future<Response>])>((0, [:]))

    init(transport: any Transport, middleware: any ConnectMiddlewareProtocol, context: FutureContext) {
        self.transport = transport
        self.middleware = middleware
        let plain = middleware as? ConnectMiddleware
        runsMiddleware = plain?.isPassthrough != true
        preparesRequests = plain.map { !$0.adapters.isEmpty || !$0.interceptors.isEmpty } ?? true
        self.context = context
        retryBudget = runsMiddleware ? middleware.retryBudget.map(RetryBudgetLedger.init(budget:)) : nil
        circuitBreaker = runsMiddleware ? middleware.circuitBreaker.map(CircuitBreakerLedger.init(breaker:)) : nil
        hedging = runsMiddleware ? middleware.hedging.map(HedgingLedger.init(hedging:)) : nil
    }

    /// Keeps `exchange` where ``cancelAll()`` finds it, until ``finished(_:)``.
    func started(_ exchange: Future<Response>) -> UInt64 {
        inFlight.withLock { state in
            state.nextID += 1
            state.exchanges[state.nextID] = exchange
            return state.nextID
        }
    }

    func finished(_ id: UInt64) {
        _ = inFlight.withLock { $0.exchanges.removeValue(forKey: id) }
    }

    /// Cancels every exchange, between transfers or in one.
    func cancelAll() {
        for exchange in inFlight.withLock({ Array($0.exchanges.values) }) {
            exchange.cancel()
        }
        transport.cancelAll()
    }
}
