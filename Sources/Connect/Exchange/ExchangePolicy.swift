/// The per-request rules above the transport: how redirects are followed, which statuses
/// succeed, and who explains the others. From the configuration, overridden by the connector.
///
/// An object, shared: a client builds the one its configuration gives once, and every request
/// without rules of its own uses it. A request's steps capture it with one retain, where a
/// value would copy each of its references into every step.
final class ExchangePolicy: Sendable {
    let acceptedStatusCodes: AcceptedStatusCodes
    let errorHandler: any ErrorHandlerProtocol
    let redirects: RedirectFollower

    init(acceptedStatusCodes: AcceptedStatusCodes, errorHandler: any ErrorHandlerProtocol, redirects: RedirectFollower)
    {
        self.acceptedStatusCodes = acceptedStatusCodes
        self.errorHandler = errorHandler
        self.redirects = redirects
    }

    /// Passes if the response's status is accepted, else throws the error handler's verdict,
    /// if it gives one. Returns nothing: handing the response back would copy it.
    func check(_ response: Response, of request: Request) throws {
        if acceptedStatusCodes.contains(response.statusCode) { return }
        if let error = errorHandler.handle(failure: FailedExchange(request: request, response: response)) {
            throw error
        }
    }
}
