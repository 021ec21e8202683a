import Foundation
import Testing

@testable import ConnectWire

/// Cookies as the WebSocket handshake reads and stores them (RFC 6265): libcurl's jar lines,
/// which cookies go with a request, and what a `Set-Cookie` header stores.
@Suite("Stored cookies")
struct StoredCookieTests {
    static let now: Int64 = 1_800_000_000

    static func cookie(
        _ domain: String, subdomains: Bool = false, path: String = "/", secure: Bool = false, expires: Int64 = 0,
        _ name: String = "a", _ value: String = "1"
    ) -> StoredCookie {
        StoredCookie(
            domain: domain, includesSubdomains: subdomains, path: path, isSecure: secure, expires: expires, name: name,
            value: value)
    }

    @Test func readsAndWritesLibcurlsLines() throws {
        let line = "#HttpOnly_.example.com\tTRUE\t/api\tTRUE\t1900000000\tsession\tabc=123"
        let cookie = try #require(StoredCookie(netscapeLine: line[...]))
        #expect(
            cookie
                == StoredCookie(
                    domain: "example.com", includesSubdomains: true, path: "/api", isSecure: true,
                    expires: 1_900_000_000,
                    name: "session", value: "abc=123", isHTTPOnly: true))
        #expect(cookie.netscapeLine == line)
        let hostOnly = try #require(StoredCookie(netscapeLine: "127.0.0.1\tFALSE\t/\tFALSE\t0\troom\tswift"))
        #expect(hostOnly == Self.cookie("127.0.0.1", "room", "swift"))
        #expect(StoredCookie(netscapeLine: "example.com\tFALSE\t/\tFALSE\tsoon\ta\t1") == nil)
        #expect(StoredCookie(netscapeLine: "# Netscape HTTP Cookie File") == nil)
    }

    @Test(
        arguments: [
            // host, path, secure: whether the cookie goes
            (cookie("example.com"), "example.com", "/", false, true),
            (cookie("example.com"), "EXAMPLE.com", "/x", false, true),
            (cookie("example.com"), "api.example.com", "/", false, false),
            (cookie("example.com", subdomains: true), "api.example.com", "/", false, true),
            (cookie("example.com", subdomains: true), "badexample.com", "/", false, false),
            (cookie("0.0.1", subdomains: true), "127.0.0.1", "/", false, false),
            (cookie("example.com", path: "/api"), "example.com", "/api", false, true),
            (cookie("example.com", path: "/api"), "example.com", "/api/v1", false, true),
            (cookie("example.com", path: "/api"), "example.com", "/apiary", false, false),
            (cookie("example.com", path: "/api/"), "example.com", "/api/v1", false, true),
            (cookie("example.com", path: "/api"), "example.com", "/", false, false),
            (cookie("example.com", secure: true), "example.com", "/", false, false),
            (cookie("example.com", secure: true), "example.com", "/", true, true),
            (cookie("example.com", expires: now - 1), "example.com", "/", false, false),
            (cookie("example.com", expires: now + 1), "example.com", "/", false, true)
        ] as [(StoredCookie, String, String, Bool, Bool)])
    func whichCookiesGoWithARequest(cookie: StoredCookie, host: String, path: String, secure: Bool, goes: Bool) {
        #expect(cookie.matches(host: host, path: path, isSecure: secure, now: Self.now) == goes)
    }

    @Test func theCookieHeaderListsLongerPathsFirst() {
        let cookies = [
            Self.cookie("example.com", "root", "1"), Self.cookie("example.com", path: "/a/b", "deep", "2"),
            Self.cookie("other.com", "other", "3"), Self.cookie("example.com", path: "/a", "mid", "4"),
            Self.cookie("example.com", "root2", "5")
        ]
        #expect(
            StoredCookie.cookieHeader(
                from: cookies, host: "example.com", path: "/a/b/c", isSecure: false, now: Self.now)
                == "deep=2; mid=4; root=1; root2=5")
        #expect(
            StoredCookie.cookieHeader(from: cookies, host: "nowhere.org", path: "/", isSecure: false, now: Self.now)
                == nil)
    }

    @Test(arguments: [("/", "/"), ("", "/"), ("/chat", "/"), ("/a/b/c", "/a/b"), ("/a/b/", "/a/b"), ("x/y", "/")])
    func theDefaultPathIsTheRequestsDirectory(requestPath: String, path: String) {
        #expect(StoredCookie.defaultPath(for: requestPath) == path)
    }

    static func stored(
        _ header: String, host: String = "chat.example.com", path: String = "/rooms/swift", secure: Bool = true
    )
        -> StoredCookie?
    {
        StoredCookie(
            setCookie: header, host: host, path: path, isSecure: secure, now: now,
            expiry: { $0 == "Wed, 09 Jun 2027 10:18:14 GMT" ? 1_812_766_694 : nil })
    }

    @Test func aSetCookieHeaderIsStoredByRFC6265() throws {
        #expect(
            Self.stored("room=swift") == Self.cookie("chat.example.com", path: "/rooms", "room", "swift"))
        #expect(
            Self.stored(" id = a b ; Path=/; Secure; HttpOnly; SameSite=Lax")
                == StoredCookie(
                    domain: "chat.example.com", includesSubdomains: false, path: "/", isSecure: true, expires: 0,
                    name: "id", value: "a b", isHTTPOnly: true))
        #expect(Self.stored("t=\"quoted\"")?.value == "\"quoted\"")
        #expect(Self.stored("empty=")?.value == "")
        // Domain: the host's own domain widens it; a leading dot is dropped; the host itself stays host-only.
        let domain = try #require(Self.stored("d=1; Domain=.Example.com"))
        #expect(domain.domain == "example.com" && domain.includesSubdomains)
        #expect(Self.stored("d=1; Domain=chat.example.com")?.includesSubdomains == false)
        #expect(Self.stored("d=1; Domain=")?.domain == "chat.example.com")
        // Expiry: Max-Age wins over Expires, whatever their order; nothing makes a session cookie.
        #expect(Self.stored("e=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT")?.expires == 1_812_766_694)
        #expect(Self.stored("e=1; Max-Age=60; Expires=Wed, 09 Jun 2027 10:18:14 GMT")?.expires == Self.now + 60)
        #expect(Self.stored("e=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT; Max-Age=60")?.expires == Self.now + 60)
        #expect(Self.stored("e=1; Max-Age=0")?.expires == 1)
        #expect(Self.stored("e=1; Max-Age=-5")?.expires == 1)
        #expect(Self.stored("e=1; Max-Age=99999999999999999999999")?.expires == Int64.max)
        #expect(Self.stored("e=1; Max-Age=soon")?.expires == 0)
        #expect(Self.stored("e=1; Expires=tomorrow")?.expires == 0)
        // Path: one that does not start with / is the default.
        #expect(Self.stored("p=1; Path=relative")?.path == "/rooms")
        #expect(Self.stored("p=1; Path=/a; Path=/b")?.path == "/b")
        #expect(Self.stored("__Secure-s=1; Secure")?.name == "__Secure-s")
        #expect(Self.stored("__Host-h=1; Secure; Path=/")?.name == "__Host-h")
        #expect(Self.stored("ip=1; Domain=127.0.0.1", host: "127.0.0.1")?.includesSubdomains == false)
    }

    @Test(
        arguments: [
            "no-equals-sign", "=value", "; a=1", "a=1\u{0}", "a=1\r\nX: y", "a\tb=1", "a=b\tc", "a=1; Path=/a\tb",
            "a=1; Domain=other.com", "a=1; Domain=example.org", "a=1; Domain=com", "a=1; Domain=hat.example.com",
            "__Secure-a=1", "__Host-a=1; Secure; Domain=chat.example.com", "__Host-a=1; Secure; Path=/rooms",
            "a=" + String(repeating: "x", count: 4096)
        ])
    func aSetCookieHeaderIsIgnored(header: String) {
        #expect(Self.stored(header) == nil)
    }

    @Test func aSecureCookieNeedsASecureAnswerAndAnAddressTakesNoDomain() {
        #expect(Self.stored("s=1; Secure", secure: false) == nil)
        #expect(Self.stored("s=1", secure: false) != nil)
        #expect(Self.stored("ip=1; Domain=0.0.1", host: "127.0.0.1") == nil)
    }
}
