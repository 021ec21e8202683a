/// Sees every request before it is sent and every result before it reaches the future, as
/// NetworkKit's interceptors do.
///
/// ```swift
/// /// Some servers answer 200 with {"ok": false, "error": "..."}: make that a failure.
/// struct OKFlag: Interceptor {
///     func process(_ result: inout Result<Response, any Error>, for request: Request) async {
///         guard case .success(let response) = result,
///               let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
///               json["ok"] as? Bool == false else { return }
///         result = .failure(AppError.server(json["error"] as? String ?? "unknown"))
///     }
/// }
/// ```
/// Both methods have do-nothing defaults; implement either or both.
public protocol Interceptor: Sendable {
    /// Changes the request before each attempt (after the adapters); throwing fails the request.
    func prepare(_ request: inout Request) async throws

    /// Inspects or replaces the result of each attempt, after status validation and before
    /// retriers and observers see it.
    func process(_ result: inout Result<Response, any Error>, for request: Request) async
}

extension Interceptor {
    public func prepare(_ request: inout Request) async throws {}
    public func process(_ result: inout Result<Response, any Error>, for request: Request) async {}
}
