import Foundation
import Testing

@testable import Connect

/// The redirect decision without a socket: which request a redirect proposes.
@Suite("Redirect decisions")
struct RedirectDecisionTests {
    static let origin = URL(string: "https://api.example.com/v1/items")!

    static func redirect(
        _ status: Int, to location: String?, method: HTTPMethod = .get, headers: [HTTPHeader] = [], body: Data? = nil
    ) -> Request? {
        var request = Request(method: method, url: origin, headers: headers)
        if let body { request.body = .data(body) }
        let response = Response(
            statusCode: status, headers: location.map { [HTTPHeader(name: "Location", value: $0)] } ?? [], url: origin)
        return RedirectFollower.redirect(for: response, of: request)
    }

    @Test(arguments: [
        // status, method → method after, body kept
        (301, HTTPMethod.get, HTTPMethod.get, false), (301, .post, .get, false), (301, .put, .put, true),
        (302, .get, .get, false), (302, .post, .get, false), (302, .delete, .delete, true),
        (303, .post, .get, false), (303, .put, .get, false), (303, .head, .head, false),
        (307, .post, .post, true), (307, .put, .put, true), (308, .post, .post, true), (308, .patch, .patch, true)
    ])
    func methodAndBodyByStatus(status: Int, method: HTTPMethod, after: HTTPMethod, keepsBody: Bool) throws {
        let body: Data? = method == .get || method == .head ? nil : Data("payload".utf8)
        let next = try #require(
            Self.redirect(
                status, to: "/v2/items", method: method, headers: [.contentType("application/json")], body: body))
        #expect(next.method == after)
        #expect(next.url.absoluteString == "https://api.example.com/v2/items")
        if body != nil {
            #expect((next.body != nil) == keepsBody)
            #expect(next.headers.contains(name: "Content-Type") == keepsBody)
        }
    }

    @Test(arguments: [
        ("https://api.example.com/other", true),  // same origin
        ("/relative", true),
        ("https://cdn.example.com/other", false),  // another host
        ("https://api.example.com:8443/other", false),  // another port
        ("http://api.example.com/other", false)  // another scheme
    ])
    func sensitiveHeadersStayWithTheOrigin(location: String, sameOrigin: Bool) throws {
        let headers = [
            HTTPHeader(name: "Authorization", value: "Bearer t"), HTTPHeader(name: "X-API-Key", value: "k"),
            HTTPHeader(name: "Cookie", value: "c=1"), HTTPHeader(name: "X-Trace", value: "abc")
        ]
        let next = try #require(Self.redirect(302, to: location, headers: headers))
        for name in ["Authorization", "X-API-Key", "Cookie"] {
            #expect(next.headers.contains(name: name) == sameOrigin, "\(name) to \(location)")
        }
        #expect(next.headers.contains(name: "X-Trace"))
    }

    @Test(arguments: [
        (200, "/elsewhere" as String?), (304, "/elsewhere"), (300, "/elsewhere"), (302, nil),
        (302, "file:///etc/passwd"), (302, "ftp://example.com/file"), (307, "javascript:alert(1)")
    ])
    func notFollowed(status: Int, location: String?) {
        #expect(Self.redirect(status, to: location).map(\.description) == nil)
    }

    @Test(arguments: [
        ("https://a.example.com", "http://a.example.com", true),
        ("https://a.example.com", "https://b.example.com", false),
        ("http://a.example.com", "http://b.example.com", false),
        ("HTTPS://a.example.com", "HTTP://a.example.com", true),
        ("http://a.example.com", "https://a.example.com", false),
        ("https+unix://%2Fs.sock", "http+unix://%2Fs.sock", true),
        ("https+unix://%2Fs.sock", "http://localhost", true),
        ("http+unix://%2Fs.sock", "https+unix://%2Fs.sock", false)
    ])
    func downgrades(from: String, to: String, isDowngrade: Bool) {
        #expect(RedirectFollower.isDowngrade(from: URL(string: from)!, to: URL(string: to)!) == isDowngrade)
    }

    /// A socket URL's origin is its scheme and socket path, the path's case kept: a redirect
    /// elsewhere drops the credentials and the request's own socket, and a relative one keeps
    /// both.
    @Test(arguments: [
        ("/relative", true),
        ("http+unix://%2Ftmp%2Fa.sock/other", true),
        ("http+unix://%2ftmp%2fa.sock/other", true),  // the same path, escaped in lower case
        ("http+unix://%2Ftmp%2FA.sock/other", false),  // another socket
        ("https+unix://%2Ftmp%2Fa.sock/other", false),
        ("http://localhost/other", false)
    ])
    func aSocketsOriginIsItsPath(location: String, sameOrigin: Bool) throws {
        let origin = URL(string: "http+unix://%2Ftmp%2Fa.sock/start")!
        var request = Request(url: origin, headers: [HTTPHeader(name: "Authorization", value: "Bearer t")])
        request.credentials = Credentials(username: "u", password: "p")
        request.unixSocketPath = "/tmp/b.sock"
        let response = Response(
            statusCode: 302, headers: [HTTPHeader(name: "Location", value: location)], url: origin)
        let next = try #require(RedirectFollower.redirect(for: response, of: request))
        #expect(next.headers.contains(name: "Authorization") == sameOrigin)
        #expect((next.credentials != nil) == sameOrigin)
        #expect((next.unixSocketPath != nil) == sameOrigin)
    }
}
