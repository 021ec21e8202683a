import ConnectFutures

extension Connect {
    /// Runs a request through the middleware: adapt, intercept, send, validate, intercept, and
    /// retry while the retriers say so. It runs in a task behind a promise that shares this
    /// client's context, so cancelling the future cancels the task (ending a backoff or a wait
    /// for a token refresh at once) and fails with `.cancelled`.
    func sendThroughMiddleware(_ request: Request, policy: ExchangePolicy, log: DebugLog?) -> Future<Response> {
        let promise = Promise<Response>(context: context)
        let id = inFlight.withLock { state -> UInt64 in
            state.nextID += 1
            state.requests[state.nextID] = promise.future
            return state.nextID
        }
        let task = Task { [self] in
            do {
                promise.succeed(try await runAttempts(of: request, policy: policy, log: log))
            } catch {
                promise.fail(Self.isCancellation(error) ? ConnectError.cancelled : error)
            }
            _ = inFlight.withLock { $0.requests.removeValue(forKey: id) }
        }
        promise.onCancel { task.cancel() }
        return promise.future
    }

    private func runAttempts(of original: Request, policy: ExchangePolicy, log: DebugLog?) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let monitors = middleware.monitors
        let interceptors = middleware.interceptors
        var number = 1
        var current = original
        do {
            while true {
                var request = try await middleware.adapt(original)
                for interceptor in interceptors { try await interceptor.prepare(&request) }
                try request.validate()
                current = request
                for monitor in monitors { monitor.requestStarted(request, attempt: number) }
                log?.request(request)

                var response: Response?
                var result: Result<Response, any Error>
                do {
                    let received = try await policy.redirects.send(request).value
                    response = received
                    for monitor in monitors { monitor.responseReceived(received, for: request, attempt: number) }
                    result = Result { try policy.check(received, of: request) }
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
                let attempt = FailedAttempt(request: request, error: error, response: response, number: number, elapsed: clock.now - start)
                switch await middleware.retry(attempt) {
                case .doNotRetry:
                    throw error
                case .fail(let replacement):
                    throw replacement
                case .retry:
                    for monitor in monitors { monitor.retryScheduled(for: request, after: error, delay: .zero, attempt: number) }
                case .retryAfter(let delay):
                    for monitor in monitors { monitor.retryScheduled(for: request, after: error, delay: delay, attempt: number) }
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

    static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ConnectError) == .cancelled
    }
}
