/// The status codes that count as success; a response with any other goes to the error handler.
///
/// ```swift
/// configuration.acceptedStatusCodes = .successful + [304]     // also accept "Not Modified"
/// var acceptedStatusCodes: AcceptedStatusCodes? { [200, 201] } // per connector
/// ```
public struct AcceptedStatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The accepted ranges, inclusive.
    public private(set) var ranges: [ClosedRange<Int>]

    /// 200 through 299.
    public static let successful = AcceptedStatusCodes(200...299)

    /// Accepts the codes in `ranges`.
    public init(_ ranges: ClosedRange<Int>...) {
        self.ranges = ranges
    }

    /// Accepts the codes in `range`.
    public init(_ range: Range<Int>) {
        ranges = range.isEmpty ? [] : [range.lowerBound...(range.upperBound - 1)]
    }

    /// Accepts exactly the listed codes.
    public init(arrayLiteral codes: Int...) {
        ranges = codes.map { $0...$0 }
    }

    /// Whether `code` is accepted.
    public func contains(_ code: Int) -> Bool {
        ranges.contains { $0.contains(code) }
    }

    /// The codes accepted by either.
    public static func + (lhs: AcceptedStatusCodes, rhs: AcceptedStatusCodes) -> AcceptedStatusCodes {
        var union = lhs
        union.ranges += rhs.ranges
        return union
    }

    public var description: String {
        ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }
}
