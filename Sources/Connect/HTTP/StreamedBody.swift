import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request body that an `AsyncSequence` produces while the request is sent: the source behind
/// ``RequestBody/stream(_:count:contentType:)`` and
/// ``RequestBody/stream(count:contentType:replayable:)``.
///
/// The sequence is iterated only once libcurl asks for the first bytes, so an attempt that fails
/// before it sends anything (a refused connection, say) leaves a one-time body unread and the
/// request may still be retried. Once iteration began, a one-time body cannot go out again.
final class StreamedBody: Sendable {
    /// Pours the bytes of one pass over the sequence into a pump, in order.
    typealias Pour = @Sendable (BodyPump.Inlet) async throws -> Void

    /// The number of bytes the sequence produces, when known: sent as `Content-Length`.
    /// Unknown, the body goes out chunked (HTTP/1.1) or in DATA frames until the end (HTTP/2).
    let count: Int?
    /// A new pass over the bytes can be made for every send.
    let isReplayable: Bool
    private let makePour: @Sendable () -> Pour
    /// A one-time body's pass has been handed out.
    private let taken = Locked(false)

    init(count: Int?, isReplayable: Bool, makePour: @escaping @Sendable () -> Pour) {
        self.count = count
        self.isReplayable = isReplayable
        self.makePour = makePour
    }

    /// One pass over the bytes, or `nil` for a one-time body already read.
    func takePass() -> Pour? {
        if isReplayable { return makePour() }
        let first = taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
        return first ? makePour() : nil
    }

    /// A one-time body that was read, and so cannot be sent again.
    var isSpent: Bool {
        !isReplayable && taken.withLock { $0 }
    }

    /// The bytes of `sequence`, in order, into `inlet`; stops early when the transfer no
    /// longer wants them.
    static func pour<Bytes: AsyncSequence>(_ sequence: Bytes, into inlet: BodyPump.Inlet) async throws
    where Bytes.Element: DataProtocol {
        for try await chunk in sequence {
            guard await inlet.deposit(chunk) else { return }
        }
    }
}
