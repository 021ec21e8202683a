#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A message a server returned, for handlers called with the body dictionary alone.
public struct ServerMessage: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message.
    public let message: String

    /// Wraps `message`.
    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
