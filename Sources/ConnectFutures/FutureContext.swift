import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings a whole chain of futures shares: made once by a producer, handed down to every
/// future chained from its promise.
///
/// ```swift
/// let context = FutureContext(callbackQueue: .main, cancellationError: MyError.cancelled)
/// let promise = Promise<Data>(context: context)
/// ```
/// One context can serve any number of promises, e.g. every promise of one client.
public final class FutureContext: Sendable {
    /// Where every observer and step of the chain runs, whichever thread completes it and
    /// whenever they are added; `nil` runs them on the completing thread (or at once, when added
    /// after completion).
    public let callbackQueue: DispatchQueue?
    /// The error a cancelled future of the chain fails with; `CancellationError()` when `nil`.
    public let cancellationError: (any Error)?
    /// Wraps the ``DecodingFailure`` that `decoded(toType:)` reports, e.g. into a library's own
    /// error type; `nil` reports it as it is.
    public let decodingFailure: (@Sendable (DecodingFailure) -> any Error)?
    /// What `decoded(toType:)` decodes JSON with when it is given no decoder.
    let jsonDecoder: UncheckedDecoder?

    /// Creates a context.
    ///
    /// - Parameter jsonDecoder: decodes JSON for `decoded(toType:)` when the call names no
    ///   decoder; a new `JSONDecoder()` when `nil`. Not changed after it is handed over.
    public init(
        callbackQueue: DispatchQueue? = nil,
        cancellationError: (any Error)? = nil,
        decodingFailure: (@Sendable (DecodingFailure) -> any Error)? = nil,
        jsonDecoder: JSONDecoder? = nil
    ) {
        self.callbackQueue = callbackQueue
        self.cancellationError = cancellationError
        self.decodingFailure = decodingFailure
        self.jsonDecoder = jsonDecoder.map(UncheckedDecoder.init)
    }
}
