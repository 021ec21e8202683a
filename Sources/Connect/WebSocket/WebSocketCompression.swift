/// What the server accepted of the permessage-deflate offer (RFC 7692), as ``WebSocket/compression``
/// reports it: whether each side keeps its compression window from message to message, and how
/// large each side's window is.
public struct WebSocketCompression: Sendable, Hashable {
    /// The server starts each message with an empty window (`server_no_context_takeover`).
    public let serverNoContextTakeover: Bool
    /// Connect starts each message it sends with an empty window (`client_no_context_takeover`).
    public let clientNoContextTakeover: Bool
    /// The server's window, 8 to 15 bits (`server_max_window_bits`; 15 when it named none).
    public let serverMaxWindowBits: Int
    /// Connect's window, 8 to 15 bits (`client_max_window_bits`; 15 when it named none).
    public let clientMaxWindowBits: Int

    init(_ parameters: DeflateParameters) {
        serverNoContextTakeover = parameters.serverNoContextTakeover
        clientNoContextTakeover = parameters.clientNoContextTakeover
        serverMaxWindowBits = parameters.serverMaxWindowBits
        clientMaxWindowBits = parameters.clientMaxWindowBits
    }
}
