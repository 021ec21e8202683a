#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension Request {
    /// A request from swift-http-types' `HTTPRequest`, for code written against the
    /// ecosystem's standard types.
    ///
    /// The URL is made of the request's scheme, authority and path (query included); the
    /// header fields become ``headers`` in order, repeated ones included.
    ///
    /// ```swift
    /// let request = try Request(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/todos?limit=5"))
    /// ```
    /// - Throws: ``ConnectError/invalidRequest(_:)`` when the scheme, authority or path is
    ///   missing or they do not make a URL.
    public init(
        _ request: HTTPRequest, body: RequestBody? = nil, timeout: Duration? = nil, allowsRetry: Bool? = nil
    ) throws(ConnectError) {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path else {
            throw .invalidRequest(
                "the HTTPRequest \(request.debugDescription.debugDescription) needs a scheme, an authority and a path to make a URL"
            )
        }
        guard let url = URL(string: "\(scheme)://\(authority)\(path.hasPrefix("/") || path.isEmpty ? "" : "/")\(path)")
        else {
            throw .invalidRequest("\(scheme)://\(authority) with the path \(path.debugDescription) is not a URL")
        }
        self.init(
            method: HTTPMethod(rawValue: request.method.rawValue), url: url,
            headers: [HTTPHeader](request.headerFields),
            body: body, timeout: timeout, allowsRetry: allowsRetry)
    }

    /// The request as swift-http-types' `HTTPRequest`: the method, the URL's scheme, authority
    /// (host and port) and path with its query, and the headers in order.
    ///
    /// The body is not part of an `HTTPRequest`; neither are credentials written into the URL
    /// (`user:password@`), which libcurl sends as an `Authorization` header.
    ///
    /// - Throws: ``ConnectError/invalidRequest(_:)`` for a method or header name that is not a
    ///   valid HTTP token, which `HTTPRequest` cannot hold.
    public func httpRequest() throws(ConnectError) -> HTTPRequest {
        guard let method = HTTPRequest.Method(method.rawValue) else {
            throw .invalidRequest("the method \(method.rawValue.debugDescription) is not a valid HTTP token")
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let scheme = components?.scheme
        var authority = components?.percentEncodedHost ?? ""
        if authority.contains(":"), !authority.hasPrefix("[") { authority = "[\(authority)]" }  // an IPv6 literal
        if let port = components?.port { authority += ":\(port)" }
        components?.scheme = nil
        components?.host = nil
        components?.port = nil
        components?.user = nil
        components?.password = nil
        components?.fragment = nil
        var path = components?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        if let query = components?.percentEncodedQuery { path += "?\(query)" }
        return HTTPRequest(
            method: method, scheme: scheme, authority: authority, path: path, headerFields: try HTTPFields(headers))
    }
}

extension HTTPFields {
    /// Connect's headers as `HTTPFields`, in order, repeated names included.
    ///
    /// - Throws: ``ConnectError/invalidRequest(_:)`` for a name that is not a valid HTTP token.
    public init(_ headers: [HTTPHeader]) throws(ConnectError) {
        try self.init(headers) { header throws(ConnectError) in
            throw .invalidRequest("the header name \(header.name.debugDescription) is not a valid HTTP token")
        }
    }

    /// `headers` as fields; a header whose name is not a valid HTTP token goes to `invalid`,
    /// which throws or lets it be left out.
    init<Failure: Error>(_ headers: [HTTPHeader], invalid: (HTTPHeader) throws(Failure) -> Void) throws(Failure) {
        self.init()
        reserveCapacity(headers.count)
        for header in headers {
            guard let name = HTTPField.Name(header.name) else {
                try invalid(header)
                continue
            }
            append(HTTPField(name: name, value: header.value))
        }
    }
}

extension Array where Element == HTTPHeader {
    /// `HTTPFields` as Connect's headers, in order, with each name as it was written.
    public init(_ fields: HTTPFields) {
        self = fields.map { HTTPHeader(name: $0.name.rawName, value: $0.value) }
    }
}
