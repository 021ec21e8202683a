import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ResponseCache {
    /// What the cache does with one hop's request, from ``CacheLookup``: answer it at once, fail
    /// it, or send a request and settle its response (``settle(_:of:)``).
    enum Plan {
        /// A stored response answers; no network.
        case answer(Response)
        /// Failed without the network.
        case fail(any Error)
        /// `request` goes out (the caller's, or a conditional one); its response is settled with
        /// `pending`.
        case send(Request, PendingResponse)
        /// A stored response answers now, and `request` revalidates it in the background
        /// unless a revalidation of it is in flight already.
        case answerAndRevalidate(Response, Request, PendingResponse)
    }

    /// What settling a response takes: the request as the caller made it, the key its response
    /// is stored under, whether the cache stores it, the stored response it validates (if any)
    /// and when it went out.
    struct PendingResponse: Sendable {
        let request: Request
        let key: String
        let cacheable: Bool
        let validated: CachedResponse?
        let requestTime: Int
        /// Whether `validated` may answer if the server cannot be reached (RFC 5861 §4, or
        /// ``servesStaleOnError``): the failure must then be caught, which the plain step does
        /// not do.
        let standsInForFailures: Bool
    }

    /// A response as the caller gets it, or the word that the request must go out again
    /// without validators (a 304 for another representation).
    enum Settled {
        case response(Response)
        case refetch
    }

    /// Decides what to do with `request` (`options`: a download, a stream…; `policy`: the
    /// client's, unless the request has its own).
    func plan(_ request: Request, options: TransferOptions?, policy: CachePolicy) -> Plan {
        let method = request.method.rawValue
        let cacheable = CacheLookup.isCacheable(
            method: method, headers: request.headers, hasTransferOptions: options != nil)
        let key = Self.key(for: request.url)
        let stored = cacheable ? store.response(for: key, requestHeaders: request.headers) : nil
        let now = clock()
        let lookup = CacheLookup.decide(
            headers: request.headers, cacheable: cacheable, policy: request.cachePolicy ?? policy, stored: stored,
            now: now)
        func pending(validating validated: CachedResponse?) -> PendingResponse {
            PendingResponse(
                request: request, key: key, cacheable: cacheable, validated: validated, requestTime: now,
                standsInForFailures: validated.map { mayStandIn($0, for: request, now: now) } ?? false)
        }
        switch lookup {
        case .bypass, .fetch:
            return .send(request, pending(validating: nil))
        case .answer(let status, let age):
            guard let stored else { preconditionFailure("the lookup answers only with a stored response") }
            return .answer(Self.response(from: stored, age: age, for: request, status: status))
        case .answerAndRevalidate(let age):
            guard let stored else { preconditionFailure("the lookup answers only with a stored response") }
            return .answerAndRevalidate(
                Self.response(from: stored, age: age, for: request, status: .stale),
                Self.request(request, adding: stored.conditionalHeaders),
                pending(validating: stored))
        case .validate(let validators):
            guard let stored else { preconditionFailure("the lookup validates only a stored response") }
            return .send(Self.request(request, adding: validators), pending(validating: stored))
        case .failNotCached:
            return .fail(
                ConnectError.transport(
                    TransportFailure(
                        kind: .notCached,
                        message:
                            "\(method) \(DebugLog.text(of: request.url, redacting: .default)) may be answered only from the cache, and no stored response answers it",
                        requestSent: false)))
        }
    }

    /// The response to a request the cache let go out, as the caller gets it, the store updated
    /// as ``CacheUpdate`` decides.
    func settle(_ response: Response, of pending: PendingResponse) -> Settled {
        let request = pending.request
        var standInAge: Int?
        if let validated = pending.validated, CacheUpdate.serverFailures.contains(response.statusCode) {
            standInAge = ageIfMayStandIn(validated, for: request, now: clock())
        }
        let update = CacheUpdate.decide(
            method: request.method.rawValue, url: request.url, requestHeaders: request.headers,
            cacheable: pending.cacheable, validated: pending.validated, mayAnswerStale: standInAge != nil,
            status: response.statusCode, headers: response.headers)
        switch update {
        case .refetch:
            return .refetch
        case .refreshStored(let headers):
            guard let validated = pending.validated else { preconditionFailure("only a validation is refreshed") }
            let refreshed = validated.refreshed(
                headers: headers, requestTime: pending.requestTime, responseTime: clock())
            store.store(refreshed)
            return .response(
                Self.response(from: refreshed, age: nil, for: request, status: .revalidated, metrics: response.metrics))
        case .answerStored:
            guard let validated = pending.validated else { preconditionFailure("only a validation stands in") }
            return .response(Self.response(from: validated, age: standInAge ?? 0, for: request, status: .stale))
        case .store:
            store.store(
                CachedResponse(
                    url: pending.key, status: response.statusCode,
                    headers: CacheStorability.storedFields(of: response.headers), body: response.body,
                    requestHeaders: request.headers, requestTime: pending.requestTime, responseTime: clock(),
                    httpVersion: response.httpVersion))
            return .response(response.with(cacheStatus: .miss))
        case .removeStored:
            store.remove(pending.key)
            return .response(response.with(cacheStatus: .miss))
        case .invalidate(let urls):
            for url in urls { store.remove(Self.key(for: url)) }
            return .response(response)
        case .none:
            return .response(pending.cacheable ? response.with(cacheStatus: .miss) : response)
        }
    }

    /// The stored response that answers in place of `error`, if one may (RFC 5861 §4, or
    /// ``servesStaleOnError``); never for a cancellation.
    func standIn(for error: any Error, of pending: PendingResponse) -> Response? {
        guard !Exchange.isCancellation(error), let validated = pending.validated,
            let age = ageIfMayStandIn(validated, for: pending.request, now: clock())
        else { return nil }
        return Self.response(from: validated, age: age, for: pending.request, status: .stale)
    }

    /// `request` answered through the cache, sending with `send` (the transport, and the hop's
    /// span) when the network is needed: the path for transports that complete futures rather
    /// than steps, and for traced hops. A fresh hit is a completed future: no transfer.
    func respond(
        to request: Request, options: TransferOptions?, policy: CachePolicy,
        send: @escaping @Sendable (Request) -> Future<Response>
    ) -> Future<Response> {
        carryOut(plan(request, options: options, policy: policy), send: send)
    }

    /// What `plan` says, as a future: its answer or failure, or its request sent (with `send`)
    /// and the response settled.
    func carryOut(_ plan: Plan, send: @escaping @Sendable (Request) -> Future<Response>) -> Future<Response> {
        switch plan {
        case .answer(let response):
            return Future(value: response)
        case .fail(let error):
            return Future(error: error)
        case .answerAndRevalidate(let response, let conditional, let pending):
            // One revalidation of a stored response at a time; its outcome only updates the
            // store, for the next request.
            if let validated = pending.validated, let revalidation = backgroundRevalidations.start(validated) {
                exchange(conditional, settledWith: pending, send: send).observe { [backgroundRevalidations] _ in
                    backgroundRevalidations.end(revalidation)
                }
            }
            return Future(value: response)
        case .send(let outgoing, let pending):
            return exchange(outgoing, settledWith: pending, send: send)
        }
    }

    /// `request` sent and its response settled, sent again without validators when the
    /// settling asks; a failure answered by the stored response where it may be.
    func exchange(
        _ request: Request, settledWith pending: PendingResponse,
        send: @escaping @Sendable (Request) -> Future<Response>
    ) -> Future<Response> {
        let settled = send(request).flatMap { [self] response -> Future<Response> in
            switch settle(response, of: pending) {
            case .response(let answer): return Future(value: answer)
            case .refetch: return exchange(pending.request, settledWith: refetching(pending), send: send)
            }
        }
        guard pending.standsInForFailures else { return settled }
        return settled.recover { [self] error -> Response in
            guard let answer = standIn(for: error, of: pending) else { throw error }
            return answer
        }
    }

    /// `pending` for its request sent again, without validators, its response stored.
    func refetching(_ pending: PendingResponse) -> PendingResponse {
        PendingResponse(
            request: pending.request, key: pending.key, cacheable: pending.cacheable, validated: nil,
            requestTime: clock(), standsInForFailures: false)
    }

    /// Whether `stored` may answer `request` in place of a failure at `now`: only with the app's
    /// opt-in or a `stale-if-error` on either side, which the stored response's parsed fields and
    /// a look at the request's say before anything is reckoned.
    private func mayStandIn(_ stored: CachedResponse, for request: Request, now: Int) -> Bool {
        guard
            servesStaleOnError || stored.control.staleIfError != nil
                || request.headers.contains(where: {
                    $0.hasName("Cache-Control") && $0.value.contains("stale-if-error")
                })
        else { return false }
        return ageIfMayStandIn(stored, for: request, now: now) != nil
    }

    /// The age of `stored` at `now`, if it may answer `request` in place of a failure (RFC 5861
    /// §4, or ``servesStaleOnError``); `nil` if it may not.
    private func ageIfMayStandIn(_ stored: CachedResponse, for request: Request, now: Int) -> Int? {
        let freshness = stored.freshness(at: now)
        let mayAnswer = CachedResponseUse.mayAnswerOnError(
            freshness: freshness, response: stored.control,
            request: CacheControl(headers: request.headers), servesStaleOnError: servesStaleOnError)
        return mayAnswer ? freshness.age : nil
    }

    /// `request` with `validators` added.
    private static func request(_ request: Request, adding validators: [HTTPHeader]) -> Request {
        guard !validators.isEmpty else { return request }
        var conditional = request
        conditional.headers += validators
        return conditional
    }

    /// The response a stored one makes for `request`: its status, headers and body, with an
    /// `Age` field of `age` seconds when given (RFC 9111 §5.1: a cache says how old what it
    /// serves is); `metrics`: those of the exchange that revalidated it, if one did.
    static func response(
        from stored: CachedResponse, age: Int?, for request: Request, status: CacheStatus,
        metrics: TransferMetrics = TransferMetrics()
    ) -> Response {
        var headers = stored.headers
        if let age {
            headers.removeAll { $0.hasName("Age") }
            headers.append(HTTPHeader(name: "Age", value: String(age)))
        }
        return Response(
            statusCode: stored.status, headers: headers, body: stored.body, url: request.url,
            httpVersion: stored.httpVersion, metrics: metrics, cacheStatus: status)
    }
}
