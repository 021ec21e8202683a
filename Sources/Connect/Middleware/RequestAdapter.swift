/// Changes a request before each attempt is sent: add headers, sign, rewrite the URL.
///
/// ```swift
/// struct APIKey: RequestAdapter {
///     func adapt(_ request: Request) async throws -> Request {
///         var request = request
///         request.setHeader(HTTPHeader(name: "X-API-Key", value: "secret"))
///         return request
///     }
/// }
/// ```
/// Adapters run again before every retry, so a refreshed credential is picked up.
public protocol RequestAdapter: Sendable {
    /// The request to send instead of `request`; throwing fails the request with that error.
    func adapt(_ request: Request) async throws -> Request
}
