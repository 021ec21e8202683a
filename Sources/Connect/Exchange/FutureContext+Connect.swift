import ConnectFutures
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FutureContext {
    /// The context of every future a `Connect` returns: `callbackQueue` `nil` runs observers
    /// on the thread that completes a future.
    static func connect(callbackQueue: DispatchQueue?, jsonDecoder: JSONDecoder? = nil) -> FutureContext {
        FutureContext(
            callbackQueue: callbackQueue, cancellationError: ConnectError.cancelled,
            decodingFailure: { ConnectError.decoding($0) },
            jsonDecoder: jsonDecoder)
    }

    /// The context of the futures of a client with `configuration`: its callback queue, or
    /// none when callbacks run on the transfer thread. Where a loop thread may complete futures
    /// on the callback queue itself (``TransferLoop/completesOnLoopThread``), a task that awaits
    /// one prefers ``AwaitingTaskExecutor`` meanwhile, to continue on that thread.
    static func connect(_ configuration: ConnectConfiguration) -> FutureContext {
        let context = connect(
            callbackQueue: configuration.runsCallbacksOnTransferThread ? nil : configuration.callbackQueue,
            jsonDecoder: configuration.jsonDecoder)
        guard let queue = context.callbackQueue, TransferLoop.completesOnLoopThread(callbackQueue: queue) else {
            return context
        }
        return context.awaiting(on: AwaitingTaskExecutor())
    }
}
