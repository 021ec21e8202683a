internal import ConnectWire
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transfer that opens a WebSocket (its options carry a ``WebSocketOpening``): libcurl only
/// connects, through the proxy and TLS as for any request, and ``CurlWebSocket`` writes the
/// handshake on that connection. The libcurl Linux ships has no WebSocket support of its own
/// (`curl_ws_*` return `CURLE_NOT_BUILT_IN` in Debian 12's 7.88), and a libcurl that sends an
/// upgrade request itself reads the answer's head and acts on it before Connect can judge it.
extension CurlTransfer {
    /// The options of an opening, in place of the method, body and headers: connect only, over
    /// HTTP/1.1 (ALPN offers `http/1.1` alone: the handshake is an HTTP/1.1 request), and through
    /// a proxy by `CONNECT`, since no proxy forwards frames of a plain request.
    func configureWebSocketOpening(_ handle: CurlEasyHandle) {
        handle.set(CURLOPT_CONNECT_ONLY, 1)
        handle.setHTTPVersion(CURL_HTTP_VERSION_1_1, waitingForMultiplexing: false)
        handle.set(CURLOPT_HTTPPROXYTUNNEL, 1)
    }

    /// The request's headers as the handshake to `url` sends them: Basic credentials as an
    /// `Authorization` header (the other schemes answer a challenge through libcurl, which does
    /// not send this request), and the cookie storage's cookies for it after any `Cookie` the
    /// request sets itself, as libcurl adds them to the requests it sends.
    func webSocketHandshakeHeaders(url: String, handle: CurlEasyHandle) throws(ConnectError) -> [HTTPHeader] {
        var headers = request.headers
        if let credentials = request.credentials {
            guard credentials.schemes.contains(.basic) else {
                throw .invalidRequest(
                    "a WebSocket handshake sends Basic credentials only (\(credentials.schemes) answer challenges)")
            }
            headers.removeAll { $0.hasName("Authorization") }
            headers.append(.authorization(username: credentials.username, password: credentials.password))
        }
        if settings.cookies != .none, let target = CookieTarget(url: url),
            let cookies = StoredCookie.cookieHeader(
                from: handle.cookieList().compactMap { StoredCookie(netscapeLine: $0[...]) }, host: target.host,
                path: target.path, isSecure: target.isSecure, now: CookieTarget.now())
        {
            if let index = headers.firstIndex(where: { $0.hasName("Cookie") }) {
                headers[index] = HTTPHeader(name: headers[index].name, value: headers[index].value + "; " + cookies)
            } else {
                headers.append(HTTPHeader(name: "Cookie", value: cookies))
            }
        }
        return headers
    }

    /// Stores the cookies the handshake's answer sets (its `Set-Cookie` headers, 101 or not) in
    /// the cookie storage, as libcurl stores those of the responses it reads; a cookie file is
    /// written at once.
    func storeWebSocketCookies(from headers: [HTTPHeader], url: String, handle: CurlEasyHandle) {
        guard settings.cookies != .none, let target = CookieTarget(url: url) else { return }
        let now = CookieTarget.now()
        var stored = false
        for header in headers where header.hasName("Set-Cookie") {
            guard
                let cookie = StoredCookie(
                    setCookie: header.value, host: target.host, path: target.path, isSecure: target.isSecure, now: now,
                    expiry: CookieTarget.date)
            else { continue }
            handle.set(CURLOPT_COOKIELIST, cookie.netscapeLine)
            stored = true
        }
        if stored, case .file = settings.cookies { handle.set(CURLOPT_COOKIELIST, "FLUSH") }
    }

    /// Whether `url` is a `ws://` or `wss://` URL, which only ``Connect/webSocket(_:options:debugResponse:)-(Connector,_,_)``
    /// opens.
    static func isWebSocketURL(_ url: String) -> Bool {
        // Most URLs are told apart by their first byte, before the scheme is taken out.
        guard url.utf8.first.map({ $0 | 0x20 == UInt8(ascii: "w") }) == true,
            let colon = url.firstIndex(of: ":")
        else { return false }
        return Request.isWebSocketScheme(String(url[..<colon]))
    }
}
