#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension Response {
    /// The response as swift-http-types' `HTTPResponse`: the status with its reason phrase,
    /// and the headers in order, repeated ones included.
    ///
    /// The body, URL and timings are not part of an `HTTPResponse`; a header line that
    /// `HTTPFields` cannot hold (a name that is not an HTTP token, which Connect refuses before
    /// it gets here) is left out.
    public var httpResponse: HTTPResponse {
        let fields = HTTPFields(headers) { _ in }  // a header it cannot hold is left out
        return HTTPResponse(
            status: HTTPResponse.Status(code: statusCode, reasonPhrase: reasonPhrase), headerFields: fields)
    }

    /// A response from swift-http-types' `HTTPResponse`, e.g. for a ``MockTransport`` or a test:
    /// its status, reason phrase and header fields in order, with `body`, from `url`.
    public init(_ response: HTTPResponse, body: Data = Data(), url: URL, httpVersion: String = "1.1") {
        self.init(
            statusCode: response.status.code, headers: [HTTPHeader](response.headerFields), body: body, url: url,
            httpVersion: httpVersion,
            reasonPhrase: response.status.reasonPhrase.isEmpty ? nil : response.status.reasonPhrase)
    }
}
