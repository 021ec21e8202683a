/// The per-request rules above the transport: how redirects are followed, which statuses
/// succeed, and who explains the others. From the configuration, overridden by the connector.
struct ExchangePolicy: Sendable {
    let acceptedStatusCodes: AcceptedStatusCodes
    let errorHandler: any ErrorHandlerProtocol
    let redirects: RedirectFollower

    /// The response if its status is accepted, else the error handler's verdict.
    func check(_ response: Response, of request: Request) throws -> Response {
        if acceptedStatusCodes.contains(response.statusCode) { return response }
        if let error = errorHandler.handle(failure: FailedResponse(request: request, response: response)) {
            throw error
        }
        return response
    }
}
