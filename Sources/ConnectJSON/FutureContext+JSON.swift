import ConnectFutures
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FutureContext {
    /// Creates a context whose chain decodes JSON with `decoded(toType:)` as given.
    ///
    /// - Parameters:
    ///   - decodingFailure: wraps the ``DecodingFailure`` that `decoded(toType:)` reports, e.g.
    ///     into a library's own error type; `nil` reports it as it is.
    ///   - jsonDecoder: decodes JSON for `decoded(toType:)` when the call names no decoder; a new
    ///     `JSONDecoder()` when `nil`. Not changed after it is handed over.
    public convenience init(
        callbackQueue: DispatchQueue? = nil,
        cancellationError: (any Error)? = nil,
        decodingFailure: (@Sendable (DecodingFailure) -> any Error)? = nil,
        jsonDecoder: JSONDecoder? = nil
    ) {
        self.init(
            callbackQueue: callbackQueue, cancellationError: cancellationError,
            settings: [JSONDecoding(decoder: jsonDecoder.map(UncheckedDecoder.init), failure: decodingFailure)])
    }

    /// Wraps the ``DecodingFailure`` that `decoded(toType:)` reports, e.g. into a library's own
    /// error type; `nil` reports it as it is.
    public var decodingFailure: (@Sendable (DecodingFailure) -> any Error)? {
        setting(JSONDecoding.self)?.failure
    }
}

/// How a chain's `decoded(toType:)` decodes: the chain's decoder and what a failure becomes.
struct JSONDecoding: FutureContextSetting {
    let decoder: UncheckedDecoder?
    let failure: (@Sendable (DecodingFailure) -> any Error)?
}
