import Connect
import ConnectFutures
import ConnectTestServer
import Foundation
import HTTPTypes
import Testing

/// `Request` and `Response` to and from swift-http-types, without loss.
@Suite("swift-http-types conversions")
struct HTTPTypesTests {
    @Test(arguments: [
        (
            "https://api.example.com/todos?limit=5&completed=true", "https", "api.example.com",
            "/todos?limit=5&completed=true"
        ),
        ("http://127.0.0.1:8080/a%20b/c?q=%C3%A9", "http", "127.0.0.1:8080", "/a%20b/c?q=%C3%A9"),
        ("https://user:secret@example.com", "https", "example.com", "/"),
        ("http://[::1]:9000/x#fragment", "http", "[::1]:9000", "/x")
    ])
    func aRequestBecomesAnHTTPRequest(url: String, scheme: String, authority: String, path: String) throws {
        let request = Request(
            method: .patch, url: URL(string: url)!,
            headers: [
                HTTPHeader(name: "Accept", value: "application/json"),
                HTTPHeader(name: "X-Tag", value: "a"),
                HTTPHeader(name: "x-tag", value: "b")
            ])
        let converted = try request.httpRequest()
        #expect(converted.method == .patch)
        #expect(converted.scheme == scheme)
        #expect(converted.authority == authority)
        #expect(converted.path == path)
        #expect(converted.headerFields.map(\.name.rawName) == ["Accept", "X-Tag", "x-tag"])
        #expect(converted.headerFields[values: .init("X-Tag")!] == ["a", "b"])
    }

    @Test func anHTTPRequestBecomesARequestAndBack() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        let original = HTTPRequest(
            method: .init("PURGE")!, scheme: "https", authority: "cdn.example.com:8443", path: "/assets/app.js?v=3",
            headerFields: fields)
        let request = try Request(original, body: .data(Data("x".utf8)))
        #expect(request.method.rawValue == "PURGE")
        #expect(request.url.absoluteString == "https://cdn.example.com:8443/assets/app.js?v=3")
        #expect(
            request.headers == [
                HTTPHeader(name: "Accept", value: "text/plain"), HTTPHeader(name: "Cookie", value: "a=1"),
                HTTPHeader(name: "Cookie", value: "b=2")
            ])
        #expect(request.body?.data == Data("x".utf8))
        #expect(try request.httpRequest() == original)
    }

    @Test func anHTTPRequestWithoutAnAuthorityIsRefused() {
        let relative = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/todos")
        #expect(throws: ConnectError.self) { try Request(relative) }
    }

    @Test func aResponseBecomesAnHTTPResponseAndBack() {
        let url = URL(string: "https://example.com/x")!
        let response = Response(
            statusCode: 418,
            headers: [HTTPHeader(name: "Set-Cookie", value: "a=1"), HTTPHeader(name: "Set-Cookie", value: "b=2")],
            body: Data("tea".utf8), url: url, reasonPhrase: "Short and stout")
        let converted = response.httpResponse
        #expect(converted.status.code == 418)
        #expect(converted.status.reasonPhrase == "Short and stout")
        #expect(converted.headerFields[values: .setCookie] == ["a=1", "b=2"])
        let back = Response(converted, body: response.body, url: url)
        #expect(back.statusCode == 418)
        #expect(back.reasonPhrase == "Short and stout")
        #expect(back.headers == response.headers)
        #expect(back.body == response.body)
    }

    /// The reason phrase a server sends is kept when it is not the standard one, and an
    /// absent one falls back to the standard phrase.
    @Test(arguments: [
        ("HTTP/1.1 404 Gone Fishing", "Gone Fishing"), ("HTTP/1.1 404 Not Found", "Not Found"),
        ("HTTP/1.1 404", "Not Found")
    ])
    func theServersReasonPhraseArrives(statusLine: String, reason: String) async throws {
        let server = try RawServer { _, _ in [.send("\(statusLine)\r\nContent-Length: 0\r\n\r\n")] }
        defer { server.shutdown() }
        var request = Request(url: server.baseURL)
        request.allowsRetry = false
        let response = try await Connect(
            configuration: {
                var c = ConnectConfiguration()
                c.acceptedStatusCodes = [404]
                return c
            }()
        ).send(request).value
        #expect(response.reasonPhrase == reason)
        #expect(response.httpResponse.status.reasonPhrase == reason)
    }
}
