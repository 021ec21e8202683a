#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a response with an unaccepted status into the error its observers see.
///
/// The simplest handler reads the parsed JSON object, as in SwiftConnect:
///
/// ```swift
/// struct MyHandler: ErrorHandlerProtocol {
///     func handle(response: [String: Any]) -> (any Error)? {
///         if response["code"] as? String == "TOKEN_EXPIRED" { return AppError.sessionExpired }
///         return AppError.server(response["reason"] as? String ?? "unknown")
///     }
/// }
/// let connect = Connect(errorHandler: MyHandler())
/// ```
/// Return `nil` to treat the response as a success after all. Handlers that need the status,
/// headers or a body that is not a JSON object implement ``handle(failure:)`` instead. Handlers
/// run on the callback queue, never on the transfer thread.
public protocol ErrorHandlerProtocol: Sendable {
    /// The error for a failed response whose body is a JSON object, or `nil` to accept it.
    ///
    /// The object holds plain Swift values, as ``FailedExchange/jsonObject`` describes: `String`,
    /// `Bool`, `Int`, `Double`, `[Any]`, `[String: Any]` and ``JSONNull``.
    func handle(response: [String: Any]) -> (any Error)?

    /// The error for any failed response, or `nil` to accept it.
    ///
    /// The default implementation calls ``handle(response:)`` when the body is a JSON object, and
    /// otherwise returns ``ConnectError/http(_:)`` with no message.
    func handle(failure: FailedExchange) -> (any Error)?
}

extension ErrorHandlerProtocol {
    public func handle(failure: FailedExchange) -> (any Error)? {
        if let object = failure.jsonObject {
            return handle(response: object)
        }
        return ConnectError.http(HTTPFailure(message: nil, response: failure.response))
    }
}
