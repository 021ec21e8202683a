#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A credential sent as the `Authorization` header of an ``AuthorizedConnector``.
public enum AuthorizationToken: Hashable, Sendable {
    /// `Authorization: Bearer <token>`.
    case bearer(token: String)
    /// `Authorization: Basic <base64(username:password)>`.
    case basic(username: String, password: String)
    /// `Authorization: <token>`, sent exactly as given (e.g. `"Token abc"`).
    case custom(token: String)

    /// The header this token is sent as.
    public var header: HTTPHeader {
        switch self {
        case .bearer(let token): return .authorization(bearerToken: token)
        case .basic(let username, let password): return .authorization(username: username, password: password)
        case .custom(let token): return .authorization(token)
        }
    }
}
