#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What makes two requests the same for coalescing (see
/// ``ConnectConfiguration/coalescesIdenticalRequests``), and which requests may share a transfer
/// at all.
///
/// Only a GET or HEAD without a body, and without transfer options (a download to a file,
/// progress, a streamed response: each caller's own), may share. Two such requests are the same
/// when everything that shapes what goes on the wire and how the answer is read is the same:
/// the method, the URL, every header in order (so credentials in an `Authorization` header, a
/// `Range`, an `Accept` or a request ID that differs keep requests apart), the credentials for a
/// challenge, the HTTP version asked for, the route (a socket or connect-to entries), the cache
/// policy and whether the request may be sent again. The timeout is left out: callers with
/// different timeouts share, and each still fails at its own (see ``RequestCoalescer``).
struct CoalescingKey: Hashable, Sendable {
    let method: HTTPMethod
    let url: String
    let headers: [HTTPHeader]
    let credentials: Credentials?
    let httpVersion: HTTPVersionPolicy?
    let unixSocketPath: String?
    let connectTo: [ConnectTo]
    let cachePolicy: CachePolicy?
    let allowsRetry: Bool?

    /// The key of `request` sent with `options`, or `nil` when the request must go out on its own.
    init?(_ request: Request, options: TransferOptions?) {
        guard options == nil, request.body == nil, request.method == .get || request.method == .head else {
            return nil
        }
        method = request.method
        url = request.url.absoluteString
        headers = request.headers
        credentials = request.credentials
        httpVersion = request.httpVersion
        unixSocketPath = request.unixSocketPath
        connectTo = request.connectTo
        cachePolicy = request.cachePolicy
        allowsRetry = request.allowsRetry
    }
}
