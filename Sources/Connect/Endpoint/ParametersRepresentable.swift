#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Anything a ``Connector`` can return as its `parameters`: ``Parameter``,
/// ``CompositeParameters``, or a kind of your own.
///
/// ```swift
/// struct Paging: ParametersRepresentable {
///     var page: Int, size: Int
///     func encode(into parameters: inout EncodedParameters) throws {
///         parameters.appendQuery(name: "page", value: "\(page)")
///         parameters.appendQuery(name: "per_page", value: "\(size)")
///     }
/// }
/// ```
public protocol ParametersRepresentable {
    /// Adds this value's path values, query items, body or headers to `parameters`.
    /// Throwing fails the request before anything is sent.
    func encode(into parameters: inout EncodedParameters) throws
}
