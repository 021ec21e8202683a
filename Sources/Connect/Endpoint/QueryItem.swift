#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `name=value` pair of a URL query.
public struct QueryItem: Hashable, Sendable {
    /// The name, unencoded.
    public var name: String
    /// The value, unencoded; `nil` sends the name alone.
    public var value: String?

    /// Creates a query item.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
