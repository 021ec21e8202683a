import ConnectFutures
import Foundation

extension FutureContext {
    /// The context of every future a `Connect` returns.
    static func connect(callbackQueue: DispatchQueue, jsonDecoder: JSONDecoder? = nil) -> FutureContext {
        FutureContext(callbackQueue: callbackQueue, cancellationError: ConnectError.cancelled, decodingFailure: { ConnectError.decoding($0) },
                      jsonDecoder: jsonDecoder)
    }
}
