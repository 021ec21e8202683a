/// What a transfer does with its response besides returning it: the file its body goes to, the
/// handler that hears of its progress, the stream a 2xx body flows into.
///
/// Set by the transfer methods (`download`, `upload`, `stream`) and carried beside the request,
/// not in it, down to a ``TransferCarrier``: an adapter or redirect that makes a new request
/// keeps them, and a request built by hand has none. A plain request has no options at all
/// (`nil`), one word where a value would be three fields on every hop.
final class TransferOptions: Sendable {
    /// Where the response body goes.
    let destination: ResponseDestination
    /// Receives upload and download progress.
    let progress: ProgressHandler?
    /// Where a 2xx body goes, chunk by chunk (``Connect/stream(_:bufferSize:debugResponse:)``).
    let streamBuffer: StreamBuffer?

    private init(destination: ResponseDestination, progress: ProgressHandler?, streamBuffer: StreamBuffer?) {
        self.destination = destination
        self.progress = progress
        self.streamBuffer = streamBuffer
    }

    /// The options, or `nil` when every one is the default (the body into memory, no progress,
    /// no stream).
    static func ifAny(
        destination: ResponseDestination = .memory, progress: ProgressHandler? = nil, streamBuffer: StreamBuffer? = nil
    ) -> TransferOptions? {
        if case .memory = destination, progress == nil, streamBuffer == nil { return nil }
        return TransferOptions(destination: destination, progress: progress, streamBuffer: streamBuffer)
    }
}
