/// A JSON `null` in a parsed failed body (``FailedExchange/json`` and
/// ``FailedExchange/jsonObject``): `object["error"] is JSONNull` tells a key that is present
/// and null from one that is absent.
public struct JSONNull: Sendable, Hashable, CustomStringConvertible {
    /// The null value.
    public init() {}

    public var description: String { "null" }
}
