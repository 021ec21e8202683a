internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The opening handshake's decisions (RFC 6455 §4.1 and §4.2.2; RFC 7692 §5 and §7): the headers
/// a client's upgrade request carries, and whether a server's answer completes the handshake,
/// with the subprotocol and compression it settled on.
struct WebSocketHandshake: Sendable {
    /// The GUID RFC 6455 §1.3 appends to the key before hashing.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Key`: 16 random bytes in base64, fresh for each handshake.
    let key: String
    /// The subprotocols offered, most wanted first.
    let subprotocols: [String]
    /// What is offered of permessage-deflate, if anything.
    let compressionOffer: WebSocketCompressionOffer?

    init(key: String, subprotocols: [String] = [], compressionOffer: WebSocketCompressionOffer? = nil) {
        self.key = key
        self.subprotocols = subprotocols
        self.compressionOffer = compressionOffer
    }

    /// A key of 16 bytes from `generator`.
    static func randomKey(using generator: inout some RandomNumberGenerator) -> String {
        Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// The value a server that read `key` answers with: base64 of SHA-1 of the key and the GUID.
    static func acceptValue(for key: String) -> String {
        Data(SHA1.digest(Array((key + acceptGUID).utf8))).base64EncodedString()
    }

    /// The headers the upgrade request carries beside its own.
    var requestHeaders: [HTTPHeader] {
        var headers = [
            HTTPHeader(name: "Upgrade", value: "websocket"), HTTPHeader(name: "Connection", value: "Upgrade"),
            HTTPHeader(name: "Sec-WebSocket-Key", value: key), HTTPHeader(name: "Sec-WebSocket-Version", value: "13")
        ]
        if !subprotocols.isEmpty {
            headers.append(HTTPHeader(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", ")))
        }
        if let compressionOffer {
            headers.append(HTTPHeader(name: "Sec-WebSocket-Extensions", value: compressionOffer.headerValue))
        }
        return headers
    }

    /// What a completed handshake settled on.
    struct Outcome: Equatable, Sendable {
        /// The subprotocol the server chose from those offered, if any.
        var subprotocol: String?
        /// permessage-deflate's parameters, if the server accepted it.
        var compression: DeflateParameters?
    }

    /// Why a server's answer does not complete the handshake.
    struct Failure: Error, Equatable, Sendable {
        let reason: String
    }

    /// Whether an answer of `status` with `headers` completes the handshake (RFC 6455 §4.1, the
    /// client's checks): 101, `Upgrade: websocket`, `Connection: upgrade`, the accept value of
    /// this key, a subprotocol only from those offered, and no extension that was not offered.
    func outcome(status: Int, headers: [HTTPHeader]) throws(Failure) -> Outcome {
        guard status == 101 else { throw Failure(reason: "the server answered \(status), not 101 Switching Protocols") }
        func values(_ name: String) -> [String] {
            headers.values(for: name).flatMap { Self.listElements($0) }
        }
        guard values("Upgrade").contains(where: { HeaderText.equalIgnoringASCIICase($0, "websocket") }) else {
            throw Failure(reason: "the 101 does not upgrade to websocket")
        }
        guard values("Connection").contains(where: { HeaderText.equalIgnoringASCIICase($0, "upgrade") }) else {
            throw Failure(reason: "the 101 has no Connection: upgrade")
        }
        let accepts = headers.values(for: "Sec-WebSocket-Accept")
        guard accepts == [Self.acceptValue(for: key)] else {
            throw Failure(
                reason: accepts.isEmpty
                    ? "the 101 has no Sec-WebSocket-Accept" : "Sec-WebSocket-Accept is not the one for this key")
        }
        var outcome = Outcome()
        let protocols = values("Sec-WebSocket-Protocol")
        if let chosen = protocols.first {
            guard protocols.count == 1, subprotocols.contains(chosen) else {
                throw Failure(
                    reason:
                        "the server chose the subprotocol \(protocols.joined(separator: ", ")), which was not offered")
            }
            outcome.subprotocol = chosen
        }
        for element in values("Sec-WebSocket-Extensions") {
            let parameters = element.split(separator: ";").map { String($0.trimmingHTTPSpaces) }
            guard let name = parameters.first, HeaderText.equalIgnoringASCIICase(name, "permessage-deflate"),
                let compressionOffer
            else {
                throw Failure(
                    reason: "the server named the extension \(element.debugDescription), which was not offered")
            }
            guard outcome.compression == nil else { throw Failure(reason: "the server named permessage-deflate twice") }
            outcome.compression = try DeflateParameters(accepting: parameters.dropFirst(), offer: compressionOffer)
        }
        return outcome
    }

    /// The elements of a comma-separated header value, trimmed, empty ones left out.
    static func listElements(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0.trimmingHTTPSpaces) }.filter { !$0.isEmpty }
    }
}

/// permessage-deflate's parameters as a server settled them (RFC 7692 §7.1): whether each side
/// starts every message with a fresh compression context, and each side's LZ77 window.
struct DeflateParameters: Equatable, Sendable {
    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    /// The server's window, 8 to 15 bits.
    var serverMaxWindowBits = 15
    /// The client's window, 8 to 15 bits: the server may narrow it because the offer named
    /// `client_max_window_bits`.
    var clientMaxWindowBits = 15

    init() {}

    /// Reads a server's accepting parameters, settled with what `offer` asked and promised; an
    /// unknown, repeated or malformed parameter, or an answer that does not accept the offer,
    /// fails the handshake (§5: "the client MUST _Fail the WebSocket Connection_"):
    ///
    /// - `server_no_context_takeover` asked for must be in the answer (§7.1.1.1);
    /// - `server_max_window_bits=n` asked for must be answered with at most `n` (§7.1.2.1);
    /// - `client_max_window_bits=n` offered may be answered with at most `n`, and is `n` when the
    ///   answer names none (§7.1.2.2);
    /// - `client_no_context_takeover` offered holds whatever the answer says (§7.1.1.2).
    init(
        accepting parameters: some Sequence<String>, offer: WebSocketCompressionOffer = .default
    ) throws(WebSocketHandshake.Failure) {
        var seen: Set<String> = []
        for parameter in parameters where !parameter.isEmpty {
            let parts = parameter.split(separator: "=", maxSplits: 1).map { String($0.trimmingHTTPSpaces) }
            let name = parts[0].lowercased()
            var value = parts.count > 1 ? parts[1] : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                value = String(quoted.dropFirst().dropLast())
            }
            guard seen.insert(name).inserted else {
                throw WebSocketHandshake.Failure(reason: "permessage-deflate names \(name) twice")
            }
            func bits() throws(WebSocketHandshake.Failure) -> Int {
                // RFC 7692 §7.1.2: 1*DIGIT from 8 to 15, no leading zero.
                guard let value, let bits = Int(value), (8...15).contains(bits), !value.hasPrefix("0") else {
                    throw WebSocketHandshake.Failure(
                        reason: "permessage-deflate's \(name) is \(value.map { "\"\($0)\"" } ?? "missing"), not 8 to 15"
                    )
                }
                return bits
            }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else {
                    throw WebSocketHandshake.Failure(reason: "permessage-deflate's \(name) takes no value")
                }
                if name == "server_no_context_takeover" {
                    serverNoContextTakeover = true
                } else {
                    clientNoContextTakeover = true
                }
            case "server_max_window_bits": serverMaxWindowBits = try bits()
            case "client_max_window_bits": clientMaxWindowBits = try bits()
            default:
                throw WebSocketHandshake.Failure(reason: "permessage-deflate's parameter \(name) is unknown")
            }
        }
        if offer.serverNoContextTakeover, !serverNoContextTakeover {
            throw WebSocketHandshake.Failure(
                reason: "the server accepted permessage-deflate without the server_no_context_takeover it was asked for"
            )
        }
        if let asked = offer.serverMaxWindowBits, serverMaxWindowBits > asked {
            throw WebSocketHandshake.Failure(
                reason: seen.contains("server_max_window_bits")
                    ? "the server's window of \(serverMaxWindowBits) bits is larger than the \(asked) it was asked for"
                    : "the server accepted permessage-deflate without the server_max_window_bits=\(asked) it was asked for"
            )
        }
        if let offered = offer.clientMaxWindowBits {
            if !seen.contains("client_max_window_bits") {
                clientMaxWindowBits = offered
            } else if clientMaxWindowBits > offered {
                throw WebSocketHandshake.Failure(
                    reason:
                        "the server set Connect's window to \(clientMaxWindowBits) bits, more than the \(offered) offered"
                )
            }
        }
        if offer.clientNoContextTakeover { clientNoContextTakeover = true }
    }
}
