import ConnectFutures

/// A WebSocket being opened by an exchange: the options its transfers need, and the connection
/// the transfer whose handshake completed leaves here for ``Connect/webSocket(_:options:debugResponse:)-(Connector,_,_)``
/// to hand over once the exchange (middleware, status check) accepts its 101.
///
/// Carried in the transfer's ``TransferOptions``, so that every attempt and redirect hop of the
/// exchange opens with the same options. A connection left here when the exchange fails after
/// all (an interceptor refused the 101, or a retry opened another) is closed.
final class WebSocketOpening: Sendable {
    let options: WebSocketOptions
    private let opened = Locked<(socket: any WebSocketConnection, outcome: WebSocketHandshake.Outcome)?>(nil)

    init(options: WebSocketOptions) {
        self.options = options
    }

    /// The transport: `socket` completed its handshake with `outcome`.
    func opened(_ socket: any WebSocketConnection, _ outcome: WebSocketHandshake.Outcome) {
        let earlier = opened.withLock { opened in
            defer { opened = (socket, outcome) }
            return opened?.socket
        }
        earlier?.release()
    }

    /// The open connection and what its handshake settled, taken once.
    func take() -> (socket: any WebSocketConnection, outcome: WebSocketHandshake.Outcome)? {
        opened.withLock { opened in
            defer { opened = nil }
            return opened
        }
    }

    deinit {
        take()?.socket.release()
    }
}
