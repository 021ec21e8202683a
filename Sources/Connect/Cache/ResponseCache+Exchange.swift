import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ResponseCache {
    /// One hop's request answered through the cache: runs what ``CacheLookup`` decides before
    /// it goes out, sending it with `send` (the transport, and the hop's span) when the network
    /// is needed, and what ``CacheUpdate`` decides with the response. A fresh hit is a completed
    /// future: no transfer, no network.
    func respond(
        to request: Request, options: TransferOptions?, policy: CachePolicy,
        send: @escaping @Sendable (Request) -> Future<Response>
    ) -> Future<Response> {
        let method = request.method.rawValue
        let cacheable = CacheLookup.isCacheable(
            method: method, headers: request.headers, hasTransferOptions: options != nil)
        let key = Self.key(for: request.url)
        let stored = cacheable ? store.response(for: key, requestHeaders: request.headers) : nil
        let now = clock()
        let lookup = CacheLookup.decide(
            method: method, headers: request.headers, hasTransferOptions: options != nil,
            policy: request.cachePolicy ?? policy, stored: stored, now: now)
        switch lookup {
        case .bypass:
            return send(request).map { [self] response in
                update(after: response, to: request, key: key, cacheable: false, validated: nil, requestTime: now)
            }
        case .fetch:
            return fetch(request, key: key, send: send)
        case .answer(let status, let age):
            guard let stored else { preconditionFailure("the lookup answers only with a stored response") }
            return Future(value: Self.response(from: stored, age: age, for: request, status: status))
        case .answerAndRevalidate(let age):
            guard let stored else { preconditionFailure("the lookup answers only with a stored response") }
            // Its outcome only updates the store, for the next request.
            validate(
                request, stored: stored, validators: CacheValidation.conditionalHeaders(for: stored.headers),
                key: key, send: send
            ).observe { _ in }
            return Future(value: Self.response(from: stored, age: age, for: request, status: .stale))
        case .validate(let validators):
            guard let stored else { preconditionFailure("the lookup validates only a stored response") }
            return validate(request, stored: stored, validators: validators, key: key, send: send)
        case .failNotCached:
            return Future(
                error: ConnectError.transport(
                    TransportFailure(
                        kind: .notCached,
                        message:
                            "\(method) \(DebugLog.text(of: request.url, redacting: .default)) may be answered only from the cache, and no stored response answers it",
                        requestSent: false)))
        }
    }

    /// `request` sent without validators; its response stored as it may be.
    private func fetch(
        _ request: Request, key: String, send: @escaping @Sendable (Request) -> Future<Response>
    ) -> Future<Response> {
        let requestTime = clock()
        return send(request).map { [self] response in
            update(after: response, to: request, key: key, cacheable: true, validated: nil, requestTime: requestTime)
        }
    }

    /// `request` sent with `validators` from `stored`: a 304 answers with `stored`, refreshed; a
    /// server failure or no answer at all with `stored` where it may stand in.
    private func validate(
        _ request: Request, stored: CachedResponse, validators: [HTTPHeader], key: String,
        send: @escaping @Sendable (Request) -> Future<Response>
    ) -> Future<Response> {
        var conditional = request
        if !validators.isEmpty { conditional.headers += validators }
        let requestTime = clock()
        return send(conditional).flatMap { [self] response -> Future<Response> in
            guard let answer = validated(response, to: request, stored: stored, key: key, requestTime: requestTime)
            else { return fetch(request, key: key, send: send) }
            return Future(value: answer)
        }.recover { [self] error -> Response in
            guard !Exchange.isCancellation(error), let age = ageIfMayStandIn(stored, for: request) else { throw error }
            return Self.response(from: stored, age: age, for: request, status: .stale)
        }
    }

    /// The response to a validating request as the caller gets it, the store updated; `nil`
    /// when the request must go out again without validators.
    private func validated(
        _ response: Response, to request: Request, stored: CachedResponse, key: String, requestTime: Int
    ) -> Response? {
        let age = CacheUpdate.serverFailures.contains(response.statusCode) ? ageIfMayStandIn(stored, for: request) : nil
        let update = CacheUpdate.decide(
            method: request.method.rawValue, url: request.url, requestHeaders: request.headers, cacheable: true,
            validated: stored, mayAnswerStale: age != nil, status: response.statusCode, headers: response.headers)
        switch update {
        case .refetch:
            return nil
        case .refreshStored(let headers):
            var refreshed = stored
            refreshed.headers = headers
            refreshed.requestTime = requestTime
            refreshed.responseTime = clock()
            store.store(refreshed)
            let answer = Self.response(from: refreshed, age: nil, for: request, status: .revalidated)
            return answer.with(metrics: response.metrics)
        case .answerStored:
            return Self.response(from: stored, age: age ?? 0, for: request, status: .stale)
        case .none, .store, .removeStored, .invalidate:
            return apply(update, to: response, of: request, key: key, cacheable: true, requestTime: requestTime)
        }
    }

    /// `response` handed on, the store updated as ``CacheUpdate`` decides.
    private func update(
        after response: Response, to request: Request, key: String, cacheable: Bool, validated: CachedResponse?,
        requestTime: Int
    ) -> Response {
        let update = CacheUpdate.decide(
            method: request.method.rawValue, url: request.url, requestHeaders: request.headers,
            cacheable: cacheable, validated: validated, mayAnswerStale: false, status: response.statusCode,
            headers: response.headers)
        return apply(update, to: response, of: request, key: key, cacheable: cacheable, requestTime: requestTime)
    }

    /// `response` handed on after `update`: a response to a request the cache answers says it
    /// came from the network, others say nothing.
    private func apply(
        _ update: CacheUpdate, to response: Response, of request: Request, key: String, cacheable: Bool,
        requestTime: Int
    ) -> Response {
        switch update {
        case .store:
            store.store(
                CachedResponse(
                    url: key, status: response.statusCode, headers: CacheStorability.storedFields(of: response.headers),
                    body: response.body,
                    requestHeaders: request.headers, requestTime: requestTime, responseTime: clock(),
                    httpVersion: response.httpVersion))
            return response.with(cacheStatus: .miss)
        case .removeStored:
            store.remove(key)
            return response.with(cacheStatus: .miss)
        case .invalidate(let urls):
            for url in urls { store.remove(Self.key(for: url)) }
            return response
        case .none:
            return cacheable ? response.with(cacheStatus: .miss) : response
        case .refreshStored, .refetch, .answerStored:
            preconditionFailure("only a validating request's response is \(update)")
        }
    }

    /// The age of `stored` now, if it may answer `request` in place of a failure (RFC 5861 §4,
    /// or ``servesStaleOnError``); `nil` if it may not.
    private func ageIfMayStandIn(_ stored: CachedResponse, for request: Request) -> Int? {
        let freshness = CacheFreshness(
            status: stored.status, headers: stored.headers, requestTime: stored.requestTime,
            responseTime: stored.responseTime, now: clock())
        let mayAnswer = CachedResponseUse.mayAnswerOnError(
            freshness: freshness, response: CacheControl(headers: stored.headers),
            request: CacheControl(headers: request.headers), servesStaleOnError: servesStaleOnError)
        return mayAnswer ? freshness.age : nil
    }

    /// The response a stored one makes for `request`: its status, headers and body, with an
    /// `Age` field of `age` seconds when given (RFC 9111 §5.1: a cache says how old what it
    /// serves is).
    static func response(from stored: CachedResponse, age: Int?, for request: Request, status: CacheStatus) -> Response
    {
        var headers = stored.headers
        if let age {
            headers.removeAll { $0.hasName("Age") }
            headers.append(HTTPHeader(name: "Age", value: String(age)))
        }
        return Response(
            statusCode: stored.status, headers: headers, body: stored.body, url: request.url,
            httpVersion: stored.httpVersion, metrics: TransferMetrics(), cacheStatus: status)
    }
}
