internal import ConnectWire

/// How a ``WebSocket`` connection behaves: the largest message it accepts, how much it holds for
/// a slow reader, keep-alive pings and how long a closing handshake may take.
///
/// ```swift
/// var options = WebSocketOptions.default
/// options.pingInterval = .seconds(20)
/// let socket = try await connect.webSocket(ChatConnector.room("swift"), options: options)
/// ```
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest message accepted, all its fragments together; a larger one closes the
    /// connection with 1009 and fails reading with ``WebSocketError/protocolViolation(closeCode:reason:)``.
    public var maximumMessageSize: Int
    /// Bytes of received messages held for a reader that is slower than the server: past it,
    /// Connect stops reading the socket until the reader catches up, and TCP slows the server
    /// down. One message larger than this is still delivered whole.
    public var receiveBufferSize: Int
    /// Messages sent are cut into frames of at most this many bytes.
    public var maximumFrameSize: Int
    /// When set, a ping goes out after this long without one, and a connection whose server
    /// does not answer before the next is due ends as ``WebSocketError/dropped(_:)``.
    public var pingInterval: Duration?
    /// How long ``WebSocket/close(code:reason:)`` waits for the server's close frame before it
    /// closes the connection anyway.
    public var closeTimeout: Duration
    /// What the handshake offers of permessage-deflate (RFC 7692), or `nil` (the default) to
    /// offer none: messages compressed with zlib when the server accepts (see
    /// ``WebSocketCompressionOffer``, and ``WebSocket/compression`` for what was settled).
    /// Worth it for text (JSON, chat); it costs each connection zlib's state (about 300 KiB with
    /// the largest windows), so it is off by default.
    public var compression: WebSocketCompressionOffer?
    /// The subprotocols the handshake offers (`Sec-WebSocket-Protocol`), most wanted first; the
    /// one the server chose is ``WebSocket/subprotocol``. Each must be an HTTP token (RFC 6455
    /// section 4.1). Offered after any the request's own header names.
    public var subprotocols: [String]

    /// 16 MiB messages, 1 MiB held for the reader, 1 MiB frames, no keep-alive pings, 5 seconds
    /// for the closing handshake, no compression, no subprotocols.
    public static let `default` = WebSocketOptions()

    /// Options with these values; each has the default's unless given.
    public init(
        maximumMessageSize: Int = 16 << 20, receiveBufferSize: Int = 1 << 20, maximumFrameSize: Int = 1 << 20,
        pingInterval: Duration? = nil, closeTimeout: Duration = .seconds(5),
        compression: WebSocketCompressionOffer? = nil,
        subprotocols: [String] = []
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.receiveBufferSize = receiveBufferSize
        self.maximumFrameSize = maximumFrameSize
        self.pingInterval = pingInterval
        self.closeTimeout = closeTimeout
        self.compression = compression
        self.subprotocols = subprotocols
    }

    /// Why these options cannot work, or `nil`.
    var problem: String? {
        if maximumMessageSize <= 0 { return "maximumMessageSize must be positive, not \(maximumMessageSize)" }
        if receiveBufferSize <= 0 { return "receiveBufferSize must be positive, not \(receiveBufferSize)" }
        if maximumFrameSize <= 0 { return "maximumFrameSize must be positive, not \(maximumFrameSize)" }
        if let pingInterval, pingInterval <= .zero { return "pingInterval must be positive, not \(pingInterval)" }
        if closeTimeout < .zero { return "closeTimeout must not be negative, not \(closeTimeout)" }
        if let problem = compression?.problem { return problem }
        for subprotocol in subprotocols
        where subprotocol.isEmpty || !HeaderText.allBytes(of: subprotocol, satisfy: HeaderText.isTokenCharacter) {
            return "the subprotocol \(subprotocol.debugDescription) is not an HTTP token"
        }
        return nil
    }
}
