#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``Connector`` whose route may need credentials.
///
/// ```swift
/// extension ProfileConnector: AuthorizedConnector {
///     var authorizationToken: AuthorizationToken? { .bearer(token: session.token) }
/// }
/// ```
/// Return `nil` for routes that need none. The token replaces any `Authorization` header the
/// connector lists itself.
public protocol AuthorizedConnector {
    /// The credential for this route, or `nil` for an unauthenticated one.
    var authorizationToken: AuthorizationToken? { get }
}
