/// What an exchange makes of its final response, in the redirect step itself (see
/// ``RedirectFollower/send(_:started:attempt:context:finish:)``): a value, so that the step holds
/// it where a closure would allocate a context for every request.
protocol ResponseFinish: Sendable {
    associatedtype Output: Sendable

    /// The exchange's output for its final `response`; a throw fails the exchange.
    func make(from response: Response) throws -> Output
}
