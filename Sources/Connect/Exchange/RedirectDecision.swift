import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What to do with one redirect.
public enum RedirectDecision: Sendable {
    /// Follow it with the proposed request.
    case follow
    /// Follow it with this request instead (e.g. another host, extra headers).
    case followModified(Request)
    /// Do not follow it: the redirect response itself is the answer (a 3xx goes to the error
    /// handler unless the accepted status codes include it).
    case refuse
}
