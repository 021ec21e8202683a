import ConnectFutures
import Foundation

extension FutureContext {
    /// The context of every future a `Connect` returns.
    static func connect(callbackQueue: DispatchQueue) -> FutureContext {
        FutureContext(callbackQueue: callbackQueue, cancellationError: ConnectError.cancelled) { ConnectError.decoding($0) }
    }
}
