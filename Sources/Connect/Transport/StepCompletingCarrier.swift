import ConnectFutures

/// A ``TransferCarrier`` that runs a request's own step (its redirects, status check and output)
/// where the transfer completes, on ``context``'s callback queue: one future a request, where
/// sending and then chaining the step makes two.
///
/// Not generic over the step: the exchange makes the ``PendingStep`` where the step's type is
/// known, so the step runs specialized behind this one existential call. Class-bound: the
/// chain holds one as an optional it reads for every request, which is then a reference and a
/// witness table, copied with a retain, rather than an opaque existential copied through its
/// type's witnesses.
protocol StepCompletingCarrier: TransferCarrier, AnyObject {
    /// The context the transport completes its futures under.
    var context: FutureContext { get }

    /// Sends `request` once, handing its response on as `options` say; the response completes
    /// `step`. Takes its arguments rather than borrows them: the transfer it starts keeps each,
    /// and a caller done with them passes them on without a retain and a release apiece.
    func send(
        _ request: consuming Request, options: consuming TransferOptions?,
        completing step: consuming PendingStep<Response>)
}
