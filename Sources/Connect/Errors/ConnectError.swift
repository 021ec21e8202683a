import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every way a request made through ``Connect`` can fail, with cases to switch on.
///
/// ```swift
/// switch error as? ConnectError {
/// case .http(let failure)?: show(failure.message ?? "Server error \(failure.statusCode)")
/// case .timedOut?, .transport?: offerRetry()
/// case .cancelled?: break
/// default: show("\(error)")
/// }
/// ```
/// Errors that your own ``ErrorHandlerProtocol`` returns reach observers unchanged instead.
///
/// These cases are fixed: a switch over them stays exhaustive from one release to the next.
/// New kinds of failure arrive as new ``TransportFailure/Kind`` values inside
/// ``transport(_:)``, never as new cases here.
public enum ConnectError: Error, Sendable, CustomStringConvertible {
    /// The request could not be built or is unsafe to send (a URL that does not parse, an
    /// unfilled `{key}`, a header with CR/LF, …). Nothing was sent.
    case invalidRequest(String)
    /// The exchange failed below HTTP: connection refused, reset, DNS failure, a truncated or
    /// malformed response, too many redirects, …; see ``TransportFailure/kind``.
    case transport(TransportFailure)
    /// The connect or total timeout elapsed.
    case timedOut(String)
    /// The request was cancelled.
    case cancelled
    /// TLS failed: the certificate was untrusted, expired or for another host, or a pin did not match.
    ///
    /// `code` is libcurl's (`CURLE_PEER_FAILED_VERIFICATION`, 60, for a refused certificate);
    /// `message` says why, also when the connection failed after the refusal.
    case tls(code: Int, message: String)
    /// The server answered with a status outside the accepted range.
    case http(HTTPFailure)
    /// The response body was larger than the configured maximum.
    case responseTooLarge(limit: Int)
    /// The body could not be decoded: `decoded(toType:)` on a future from `Connect` fails with
    /// this, carrying the type, the coding path and the start of the body.
    // Indirect: the failure holds a `DecodingError`, whose layout is known only at run time,
    // which would make every `ConnectError?` and typed throw a call into the Swift runtime.
    indirect case decoding(DecodingFailure)

    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "Invalid request: \(reason)."
        case .transport(let failure):
            return "Transport failure: \(failure)."
        case .timedOut(let message):
            return "Timed out: \(message)."
        case .cancelled:
            return "The request was cancelled."
        case .tls(let code, let message):
            return "TLS failure: \(message) (curl error \(code))."
        case .http(let failure):
            return failure.description
        case .responseTooLarge(let limit):
            return "The response body is larger than the limit of \(limit) bytes."
        case .decoding(let failure):
            return failure.description
        }
    }

    /// The HTTP status, for ``http(_:)`` errors.
    public var statusCode: Int? {
        if case .http(let failure) = self { return failure.statusCode }
        return nil
    }
}

extension ConnectError: LocalizedError {
    /// The same text as ``description``, for code that shows `localizedDescription`.
    public var errorDescription: String? { description }
}

extension ConnectError: Equatable {
    /// Compares the case and its plain values; HTTP and decoding failures compare by status
    /// and description.
    public static func == (lhs: ConnectError, rhs: ConnectError) -> Bool {
        switch (lhs, rhs) {
        case (.cancelled, .cancelled): return true
        case (.invalidRequest(let a), .invalidRequest(let b)): return a == b
        case (.timedOut(let a), .timedOut(let b)): return a == b
        case (.transport(let a), .transport(let b)): return a == b
        case (.tls(let a, let b), .tls(let c, let d)): return a == c && b == d
        case (.responseTooLarge(let a), .responseTooLarge(let b)): return a == b
        case (.http(let a), .http(let b)): return a.statusCode == b.statusCode && a.message == b.message
        case (.decoding(let a), .decoding(let b)): return a.description == b.description
        default: return false
        }
    }
}
