import FuzzSupport

@testable import Connect
@testable import ConnectWire

/// `Set-Cookie` headers as the WebSocket handshake stores them: whatever a server sends, a
/// cookie that is kept writes a jar line libcurl reads back to the same cookie (one line, seven
/// fields: no tab or line break gets through), has a name, and goes with a request like the one
/// that set it. The first byte picks the request's host and whether it was secure.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetCookie(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let selector = bytes.first else { return 0 }
    let hosts = ["chat.example.com", "example.com", "127.0.0.1", "::1", "localhost", "a.b.c.example.org"]
    let host = hosts[Int(selector >> 1) % hosts.count]
    let secure = selector & 1 == 1
    let header = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let now: Int64 = 1_800_000_000
    guard
        let cookie = StoredCookie(
            setCookie: header, host: host, path: "/rooms/swift", isSecure: secure, now: now, expiry: CookieTarget.date)
    else { return 0 }
    let line = cookie.netscapeLine
    require(!cookie.name.isEmpty, "\(header.debugDescription) kept a cookie without a name")
    require(
        !line.contains("\n") && !line.contains("\r"),
        "\(header.debugDescription) wrote a line break: \(line.debugDescription)")
    let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
    require(fields.count == 7, "\(header.debugDescription) wrote \(fields.count) fields: \(line.debugDescription)")
    require(
        StoredCookie(netscapeLine: line[...]) == cookie,
        "\(header.debugDescription) wrote \(line.debugDescription), which reads back differently")
    if cookie.expires == 0 || cookie.expires > now {
        require(
            cookie.matches(host: host, path: cookie.path, isSecure: secure, now: now),
            "\(header.debugDescription) stored a cookie that does not go back to \(host)")
    }
    return 0
}
