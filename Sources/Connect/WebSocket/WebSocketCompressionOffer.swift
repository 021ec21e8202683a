/// What the opening handshake offers of permessage-deflate (RFC 7692), set as
/// ``WebSocketOptions/compression``; what the server accepted is ``WebSocket/compression``.
///
/// ```swift
/// var options = WebSocketOptions.default
/// options.compression = .default                                    // zlib's largest windows
/// options.compression = WebSocketCompressionOffer(serverMaxWindowBits: 10,
///                                                 serverNoContextTakeover: true)  // less memory
/// ```
///
/// The window parameters trade memory for compression: a window of `n` bits keeps the last
/// 2ⁿ bytes of each direction to refer back to, and a side without context takeover starts each
/// message afresh. A server that accepts the offer must agree to what it asks of the server: a
/// 101 that ignores `serverNoContextTakeover` or answers with a larger server window fails the
/// handshake (``TransportFailure/Kind/webSocketHandshake``), as RFC 7692 section 5 asks.
public struct WebSocketCompressionOffer: Sendable, Hashable {
    /// Asks the server to start each message it sends with an empty window
    /// (`server_no_context_takeover`), so that the server keeps no compression window between
    /// messages.
    public var serverNoContextTakeover: Bool
    /// Says Connect starts each message it sends with an empty window
    /// (`client_no_context_takeover`), so that the server need not keep one for it.
    public var clientNoContextTakeover: Bool
    /// The largest window the server may use, 8 to 15 bits (`server_max_window_bits`); `nil`
    /// leaves it to the server (15 at most).
    public var serverMaxWindowBits: Int?
    /// The largest window Connect uses, 8 to 15 bits (`client_max_window_bits=n`); `nil` offers
    /// `client_max_window_bits` without a value, so that the server may choose it (15 unless it
    /// does).
    public var clientMaxWindowBits: Int?

    /// zlib's largest windows both ways, each side's window carried from message to message:
    /// the best compression.
    public static let `default` = WebSocketCompressionOffer()

    /// An offer with these parameters; each is the default's unless given.
    public init(
        serverMaxWindowBits: Int? = nil, clientMaxWindowBits: Int? = nil, serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false
    ) {
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
    }

    /// Why this offer cannot be made, or `nil`.
    var problem: String? {
        for (name, bits) in [("serverMaxWindowBits", serverMaxWindowBits), ("clientMaxWindowBits", clientMaxWindowBits)]
        {
            if let bits, !(8...15).contains(bits) { return "compression's \(name) must be 8 to 15, not \(bits)" }
        }
        return nil
    }

    /// The `Sec-WebSocket-Extensions` value that offers it.
    var headerValue: String {
        var value = "permessage-deflate"
        if serverNoContextTakeover { value += "; server_no_context_takeover" }
        if clientNoContextTakeover { value += "; client_no_context_takeover" }
        if let serverMaxWindowBits { value += "; server_max_window_bits=\(serverMaxWindowBits)" }
        value += clientMaxWindowBits.map { "; client_max_window_bits=\($0)" } ?? "; client_max_window_bits"
        return value
    }
}
