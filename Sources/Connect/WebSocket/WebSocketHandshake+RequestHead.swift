#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension WebSocketHandshake {
    /// The names of the headers the handshake itself sets: a request's own are left out.
    static let ownHeaderNames = [
        "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Extensions",
        "Sec-WebSocket-Protocol",
        "Host",
        "Content-Length", "Transfer-Encoding"
    ]

    /// The opening handshake's request head as it goes on the wire (RFC 6455 §4.1): `GET` with
    /// the URL's path and query, `Host` with the port when it is not the scheme's, the request's
    /// headers, then this handshake's. Connect writes it itself on the connection libcurl opened
    /// (`CURLOPT_CONNECT_ONLY`), since the libcurl Linux ships cannot send an upgrade.
    ///
    /// `url`: the URL the connection was opened for, `http://` or `https://` (an `http+unix`
    /// URL's stands in as `localhost`). Returns `nil` for a URL without a host.
    func requestHead(url: String, headers: [HTTPHeader]) -> [UInt8]? {
        guard let components = URLComponents(string: url), let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        let isHTTPS = components.scheme?.lowercased() == "https"
        var target = components.percentEncodedPath
        if target.isEmpty { target = "/" }
        if let query = components.percentEncodedQuery { target += "?" + query }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port, port != (isHTTPS ? 443 : 80) { authority += ":\(port)" }
        var head = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for header in headers where !Self.ownHeaderNames.contains(where: header.hasName) {
            head += "\(header.name): \(header.value)\r\n"
        }
        for header in requestHeaders { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// The subprotocols a request offers in its `Sec-WebSocket-Protocol` headers, in order.
    static func offeredSubprotocols(in headers: [HTTPHeader]) -> [String] {
        headers.values(for: "Sec-WebSocket-Protocol").flatMap { listElements($0) }
    }
}
