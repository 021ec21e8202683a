import CCurl

// The end of a transfer: the transfer's last event (`CurlTransfer.finished(_:on:)`) says what
// follows, and the loop carries it out: a delivery goes to the hand-off (CompletionHandOff),
// which completes the future on the callback queue; a restart goes back to libcurl
// (TransferLoop+Restarts); a WebSocket handshake opens its connection (TransferLoop+WebSockets).
// Every transfer the loop ends, however, is settled here (`settle`).
extension TransferLoop {
    /// Delivers `transfer`, which libcurl ended with `code` on `handle`, opens its WebSocket, or
    /// starts it over: whichever ``CurlTransfer/finished(_:on:)`` says.
    func collect(_ transfer: consuming CurlTransfer, endedWith code: CURLcode, on handle: CurlEasyHandle) {
        let delivery: CurlTransfer.Delivery
        switch transfer.finished(code, on: handle) {
        case .deliver(let settled):
            delivery = settled
        case .openWebSocket(let opening):
            return openWebSocket(transfer, opening, on: handle)
        case .restart(let restart, let end):
            if self.restart(handle, transfer, restart) { return }
            delivery = transfer.deliveryWithoutRestart(end, handle: handle)
        }
        remove(handle, keepingSetup: delivery.keepsHandleSetup)
        settle(transfer, delivery.outcome)
    }

    /// Keeps `transfer`, which ended with `outcome`, for the hand-over at the end of the loop's
    /// pass (``CompletionHandOff/handOver(_:drainingHere:)``): with many transfers in flight,
    /// one hand-over per pass costs less than one per transfer. A failed transfer's received
    /// buffers go back to the pool at once: what it received never leaves this thread.
    func settle(_ transfer: consuming CurlTransfer, _ outcome: consuming Result<ResponseBuffers, any Error>) {
        if let received = transfer.received {
            transfer.received = nil
            responseBuffers.reclaim(received)
        }
        settledInPass.append(CompletionHandOff.Finished(transfer: transfer, outcome: outcome))
    }
}
