/// What an exchange makes of its final response, in the redirect step itself (see
/// ``RedirectFollower/send(_:started:attempt:context:finish:)``): a value, so that the step holds
/// it where a closure would allocate a context for every request.
protocol ResponseFinish: Sendable {
    associatedtype Output: Sendable

    /// The exchange's output for its final `response`; a throw fails the exchange.
    func finish(_ response: Response) throws -> Output
}

/// The final response as it is: the middleware path, which validates it later.
struct FinalResponse: ResponseFinish {
    func finish(_ response: Response) -> Response { response }
}
