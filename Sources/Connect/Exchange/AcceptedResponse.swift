/// The final response checked against the exchange's policy (its accepted status codes and error
/// handler), then handed to the caller's `output`.
struct AcceptedResponse<Output: Sendable>: ResponseFinish {
    let policy: ExchangePolicy
    let request: Request
    let output: @Sendable (Response) -> Output

    func make(from response: Response) throws -> Output {
        try policy.check(response, of: request)
        return output(response)
    }
}
