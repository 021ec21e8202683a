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
                for monitor in monitors { monitor.requestStarted(request, attempt: number) }
                log?.request(request)

                var response: Response?
                var result: Result<Response, any Error>
                do {
                    let received = try await policy.redirects.send(
                        request, options: options, started: attemptStarted, attempt: number, traceParent: traceParent
                    ).value
                    response = received
                    for monitor in monitors { monitor.responseReceived(received, for: request, attempt: number) }
                    result = Result {
                        try policy.check(received, of: request)
                        return received
                    }
                } catch {
                    result = .failure(error)
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
