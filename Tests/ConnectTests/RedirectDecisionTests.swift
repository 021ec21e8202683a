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
        ("http://a.example.com", "https://a.example.com", false)
    ])
    func downgrades(from: String, to: String, isDowngrade: Bool) {
        #expect(RedirectFollower.isDowngrade(from: URL(string: from)!, to: URL(string: to)!) == isDowngrade)
    }
}
