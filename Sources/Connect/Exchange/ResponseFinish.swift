/// What an exchange makes of its final response, in the redirect step itself (see
/// ``RedirectFollower/send(_:options:started:attempt:context:finish:)``): a value, so that the step holds
/// it where a closure would allocate a context for every request.
protocol ResponseFinish: Sendable {
    associatedtype Output: Sendable

    /// The exchange's output for its final `response`; a throw fails the exchange.
    func make(from response: Response) throws -> Output
}

/// The final response checked against the exchange's policy (its accepted status codes and error
/// handler), then handed to the caller's `output`.
struct CheckedFinish<Output: Sendable>: ResponseFinish {
    let policy: ExchangePolicy
    let request: Request
    let output: @Sendable (Response) -> Output

    func make(from response: Response) throws -> Output {
        try policy.check(response, of: request)
        return output(response)
    }
}

/// The final response as it is: the middleware path, which validates it later.
struct UncheckedFinish: ResponseFinish {
    func make(from response: Response) -> Response { response }
}
