/// Header names whose values are secrets: redacted in `debugResponse` logs and withheld from
/// another origin when a redirect leaves the one they were meant for.
///
/// ```swift
/// configuration.sensitiveHeaders.insert("X-Tenant-Secret")
/// ```
/// Names compare ignoring ASCII case.
public struct SensitiveHeaders: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// The names, lowercased.
    public private(set) var names: Set<String>

    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and the common API-key and
    /// token headers.
    public static let `default`: SensitiveHeaders = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
        "X-API-Key", "Api-Key", "X-Auth-Token", "X-Access-Token", "X-Amz-Security-Token", "X-CSRF-Token"
    ]

    /// A list of these names.
    public init(_ names: some Sequence<String>) {
        self.names = Set(names.map { $0.lowercased() })
    }

    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// Whether `name` is one of them.
    public func contains(_ name: String) -> Bool {
        names.contains(name.lowercased())
    }

    /// Adds `name`.
    public mutating func insert(_ name: String) {
        names.insert(name.lowercased())
    }

    /// Removes `name`, e.g. a header the default list holds that is no secret for your API.
    public mutating func remove(_ name: String) {
        names.remove(name.lowercased())
    }
}
