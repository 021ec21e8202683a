#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Several parameters for one request, in order.
///
/// ```swift
/// CompositeParameters(
///     .path(key: "userId", value: "1"),
///     .query(key: "action", value: "update"),
///     .jsonObject(value: todo)
/// )
/// ```
public struct CompositeParameters: ParametersRepresentable {
    /// The parameters, applied in order.
    public var parameters: [any ParametersRepresentable]

    /// Combines `parameters`.
    public init(_ parameters: Parameter...) {
        self.parameters = parameters
    }

    /// Combines `parameters`, which may be of any kind.
    public init(_ parameters: [any ParametersRepresentable]) {
        self.parameters = parameters
    }

    public func encode(into parameters: inout EncodedParameters) throws {
        for parameter in self.parameters {
            try parameter.encode(into: &parameters)
        }
    }
}
