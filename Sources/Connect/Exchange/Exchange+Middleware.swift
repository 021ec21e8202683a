import ConnectFutures

extension Exchange {
    /// The middleware path: attempts in a task behind a promise that shares the client's
    /// context, so cancelling the future cancels the task (ending a backoff or a wait for a
    /// token refresh at once) and fails with `.cancelled`.
    func runThroughMiddleware(_ request: Request) -> Future<Response> {
        let promise = Promise<Response>(context: client.context)
        let id = client.started(promise.future)
        let task = Task { [self] in
            do {
                promise.succeed(try await runAttempts(of: request))
            } catch {
                promise.fail(Self.isCancellation(error) ? ConnectError.cancelled : error)
            }
            client.finished(id)
        }
        promise.onCancel { task.cancel() }
        return promise.future
    }

    /// Adapt, intercept, send (redirects included), validate, intercept, and retry while the
    /// retriers say so; the attempt count and each attempt's deadline live here.
    private func runAttempts(of original: Request) async throws -> Response {
        let middleware = client.middleware
        let start = MonotonicInstant.now
        let monitors = middleware.monitors
        let interceptors = middleware.interceptors
        var number = 1
        var current = original
        do {
            while true {
                // The timeout bounds the attempt from here: preparing it (adapters, interceptors,
                // a wait for a token refresh) and every redirect hop.
                let attemptStarted = MonotonicInstant.now
                let request = try await prepare(
                    original, interceptors: interceptors,
                    until: attemptStarted + (original.timeout ?? policy.redirects.timeout))
                try request.validate()
                current = request
                if number == 1 { client.retryBudget?.recordFirstAttempt(to: request.url) }
                let isProbe = try admitThroughCircuitBreaker(request, monitors: monitors)
                log?.request(request)

                var (result, response): (Result<Response, any Error>, Response?)
                if !isProbe, let hedging = client.hedging, hedging.hedging.applies(to: request, options: options) {
                    (result, response, number) = await hedge(
                        request, started: attemptStarted, from: number, hedging: hedging, monitors: monitors)
                } else {
                    (result, response) = await attempt(
                        request, started: attemptStarted, number: number, isProbe: isProbe, monitors: monitors)
                }
                for interceptor in interceptors { await interceptor.process(&result, for: request) }

                let error: any Error
                switch result {
                case .success(let response): return response
                case .failure(let failure): error = failure
                }
                if Task.isCancelled || Self.isCancellation(error) { throw ConnectError.cancelled }
                let attempt = FailedAttempt(
                    request: request, error: error, response: response, number: number,
                    elapsed: MonotonicInstant.now - start)
                let decision = await middleware.retry(attempt)
                if decision.retries, request.body?.isSpent == true {
                    throw ConnectError.transport(
                        TransportFailure(
                            .bodyNotReplayable,
                            "Attempt \(number) failed (\(error)) and would be retried, but its body is a one-time stream that was already read (a replayable RequestBody.stream can be sent again)",
                            requestSent: true))
                }
                if decision.retries, let budget = client.retryBudget,
                    let refusal = budget.payForRetry(to: request.url)
                {
                    throw Self.budgetExhausted(budget.name(for: request.url), refusal, attempt: number, error: error)
                }
                switch decision {
                case .doNotRetry:
                    throw error
                case .fail(let replacement):
                    throw replacement
                case .retry:
                    for monitor in monitors {
                        monitor.retryScheduled(for: request, after: error, delay: .zero, attempt: number)
                    }
                case .retryAfter(let delay):
                    for monitor in monitors {
                        monitor.retryScheduled(for: request, after: error, delay: delay, attempt: number)
                    }
                    try await Task.sleep(for: delay)
                }
                number += 1
            }
        } catch {
            if !Self.isCancellation(error) {
                for monitor in monitors { monitor.requestFailed(current, error: error, attempts: number) }
            }
            throw error
        }
    }

    /// Sends attempt `number` of `request` and checks its response: the result the interceptors
    /// and retriers see, and the response when one came. Monitors, the circuit breaker and the
    /// hedging delay's measurements hear of it here, so that a hedge is counted as any attempt is.
    private func attempt(
        _ request: Request, started attemptStarted: MonotonicInstant, number: Int, isProbe: Bool,
        monitors: [any ConnectMonitor]
    ) async -> (Result<Response, any Error>, Response?) {
        for monitor in monitors { monitor.requestStarted(request, attempt: number) }
        // Read only where a hedging delay is measured: other attempts have no use for the clock.
        let sent = client.hedging == nil ? nil : MonotonicInstant.now
        var response: Response?
        var result: Result<Response, any Error>
        do {
            let received = try await policy.redirects.send(
                request, options: options, started: attemptStarted, attempt: number, traceParent: traceParent
            ).value
            response = received
            if let hedging = client.hedging, let sent { hedging.record(MonotonicInstant.now - sent, for: request.url) }
            for monitor in monitors { monitor.responseReceived(received, for: request, attempt: number) }
            result = Result {
                try policy.check(received, of: request)
                return received
            }
        } catch {
            result = .failure(error)
        }
        if let breaker = client.circuitBreaker {
            let outcome = CircuitState.outcome(
                status: response?.statusCode, error: result.errorIfFailed, breaker: breaker.breaker)
            breaker.record(outcome, probe: isProbe, for: request.url, monitors: monitors)
        }
        return (result, response)
    }

    /// Attempts of `request` side by side, numbered from `first`: the next one starts when the
    /// hedging delay has passed since the last one started and none has answered, if the retry
    /// budget pays for it, up to the policy's number. The first accepted answer wins and the
    /// others are cancelled (their tasks, and with them their transfers); a failure leaves the
    /// others running, and when all have failed, the last failure is the result. Also returns
    /// the number of the last attempt started, from which later retries count on.
    private func hedge(
        _ request: Request, started attemptStarted: MonotonicInstant, from first: Int, hedging: HedgingLedger,
        monitors: [any ConnectMonitor]
    ) async -> (Result<Response, any Error>, Response?, Int) {
        let delay = hedging.delay(for: request.url)
        let maximum = hedging.hedging.maximumAttempts
        // A hedge goes out on its own: sharing the transfer of the attempt it hedges (or of an
        // identical request's) would wait for the same slow answer.
        var hedge = request
        hedge.coalescesIdenticalRequests = false
        return await withTaskGroup(of: (Result<Response, any Error>, Response?)?.self) { group in
            var launched = 1
            var running = 1
            func startTimer() {
                // `nil` marks the delay's end; a cancelled sleep ends it early, and is ignored.
                group.addTask {
                    try? await Task.sleep(for: delay)
                    return nil
                }
            }
            group.addTask {
                await self.attempt(request, started: attemptStarted, number: first, isProbe: false, monitors: monitors)
            }
            startTimer()
            var last: (Result<Response, any Error>, Response?) = (.failure(ConnectError.cancelled), nil)
            while let event = await group.next() {
                guard let answer = event else {
                    guard !Task.isCancelled, running > 0, launched < maximum,
                        client.retryBudget?.payForRetry(to: request.url) == nil
                    else { continue }
                    let number = first + launched
                    launched += 1
                    running += 1
                    group.addTask { [hedge] in
                        await self.attempt(
                            hedge, started: MonotonicInstant.now, number: number, isProbe: false, monitors: monitors)
                    }
                    if launched < maximum { startTimer() }
                    continue
                }
                running -= 1
                last = answer
                if case .success = answer.0 { break }
                if running == 0 { break }
            }
            // The losers' tasks are cancelled, which cancels their transfers; the group waits for them.
            group.cancelAll()
            return (last.0, last.1, first + launched - 1)
        }
    }

    /// Whether the client's circuit breaker lets the attempt go, and as its origin's probe; a
    /// `circuitOpen` failure if it does not.
    private func admitThroughCircuitBreaker(
        _ request: Request, monitors: [any ConnectMonitor]
    ) throws(ConnectError)
        -> Bool
    {
        guard let breaker = client.circuitBreaker else { return false }
        let now = MonotonicInstant.now
        switch breaker.admit(request.url, monitors: monitors, at: now) {
        case .send: return false
        case .probe: return true
        case .refuse(let nextProbe):
            let when =
                nextProbe.map { "the next probe goes in \(($0 - now).secondsAndMilliseconds)" }
                ?? "a probe is under way"
            throw .transport(
                TransportFailure(
                    kind: .circuitOpen,
                    message:
                        "\(request) was not sent: the circuit of \(request.url.originKey) is open after \(breaker.breaker.failureThreshold) failures in a row, and \(when)",
                    requestSent: false, retryNotBefore: nextProbe.map { ContinuousClock.now + ($0 - now) }))
        }
    }

    /// The failure of a request whose retry the budget refused: it names the attempt's error,
    /// and whether the server may have seen the request is that error's.
    private static func budgetExhausted(
        _ budget: String, _ refusal: RetryBudgetAccount.Refusal, attempt number: Int, error: any Error
    ) -> ConnectError {
        var requestSent = true
        if case .transport(let failure)? = error as? ConnectError { requestSent = failure.requestSent }
        return .transport(
            TransportFailure(
                kind: .retryBudgetExhausted,
                message:
                    "Attempt \(number) failed (\(error)) and would be retried, but \(budget) is spent: \(refusal)",
                requestSent: requestSent))
    }

    /// `original` adapted and prepared by the interceptors, or a timeout failure at `deadline`
    /// if that takes longer (a wait for a token refresh that does not come, an adapter that
    /// hangs). The work runs in a task of its own, which inherits this one's task-local values
    /// and is cancelled at the deadline.
    private func prepare(
        _ original: Request, interceptors: [any Interceptor], until deadline: MonotonicInstant
    ) async throws -> Request {
        guard client.preparesRequests else { return original }
        let middleware = client.middleware
        let prepared = Promise<Request>()
        let work = Task {
            do {
                var request = try await middleware.adapt(original)
                for interceptor in interceptors { try await interceptor.prepare(&request) }
                prepared.succeed(request)
            } catch {
                prepared.fail(error)
            }
        }
        let timer = Task {
            // MonotonicInstant reads the continuous clock, which Task.sleep(for:) counts on.
            try await Task.sleep(for: deadline - MonotonicInstant.now)
            prepared.fail(
                ConnectError.timedOut(
                    "preparing the request (adapters, interceptors, a wait for a token refresh) took longer than its timeout"
                ))
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        return try await prepared.future.value
    }
}

extension Result {
    /// The error, if it is a failure.
    fileprivate var errorIfFailed: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
