import ConnectFutures

/// What Connect's own transports do beyond ``Transport``: carry a request with its
/// ``TransferOptions``, and learn of the client that sends through them.
///
/// Internal, and asked for once when a client is made: the layers above `Transport/` name no
/// concrete transport. A transport of the app's own carries plain requests only; a transfer
/// with options fails on it with a typed error rather than losing its file or stream.
protocol TransferCarrier: Transport {
    /// Sends `request` once, handing its response on as `options` say (`nil`: into memory).
    func send(_ request: Request, options: TransferOptions?) -> Future<Response>

    /// Told of the request builder of the `Connect` that sends through this transport.
    func adopt(_ builder: UncheckedRequestBuilder)
}

extension TransferCarrier {
    func adopt(_ builder: UncheckedRequestBuilder) {}
}
