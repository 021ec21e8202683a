import ConnectFutures

/// A ``TransferCarrier`` that runs a request's own step (its redirects, status check and output)
/// where the transfer completes, on ``context``'s callback queue: one future a request, where
/// sending and then chaining the step makes two.
///
/// Not generic over the step: the exchange makes the ``PendingStep`` where the step's type is
/// known, so the step runs specialized behind this one existential call.
protocol StepCompletingCarrier: TransferCarrier {
    /// The context the transport completes its futures under.
    var context: FutureContext { get }

    /// Sends `request` once, handing its response on as `options` say; the response completes
    /// `step`.
    func send(_ request: Request, options: TransferOptions?, completing step: PendingStep<Response>)
}
