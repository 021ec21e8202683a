/// What a transfer does with its response besides returning it: the file its body goes to, the
/// handler that hears of its progress, the stream a 2xx body flows into, and how fast it may go.
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
    /// Bytes a second this transfer receives at most, in place of the configuration's
    /// (`download(…, maximumRate:)`).
    let maximumReceiveRate: Int?
    /// Bytes a second this transfer sends at most, in place of the configuration's
    /// (`upload(…, maximumRate:)`).
    let maximumSendRate: Int?
    /// The WebSocket this transfer opens: the transfer connects, then writes the opening
    /// handshake itself and keeps the connection (see ``WebSocketOpening``).
    let webSocket: WebSocketOpening?

    private init(
        destination: ResponseDestination, progress: ProgressHandler?, streamBuffer: StreamBuffer?,
        maximumReceiveRate: Int?, maximumSendRate: Int?, webSocket: WebSocketOpening? = nil
    ) {
        self.destination = destination
        self.progress = progress
        self.streamBuffer = streamBuffer
        self.maximumReceiveRate = maximumReceiveRate
        self.maximumSendRate = maximumSendRate
        self.webSocket = webSocket
    }

    /// The options of a WebSocket's opening handshake.
    static func opening(_ webSocket: WebSocketOpening) -> TransferOptions {
        TransferOptions(
            destination: .memory, progress: nil, streamBuffer: nil, maximumReceiveRate: nil, maximumSendRate: nil,
            webSocket: webSocket)
    }

    /// The options, or `nil` when every one is the default (the body into memory, no progress,
    /// no stream, the configuration's rates).
    static func ifAny(
        destination: ResponseDestination = .memory, progress: ProgressHandler? = nil, streamBuffer: StreamBuffer? = nil,
        maximumReceiveRate: Int? = nil, maximumSendRate: Int? = nil
    ) -> TransferOptions? {
        if case .memory = destination, progress == nil, streamBuffer == nil, maximumReceiveRate == nil,
            maximumSendRate == nil
        {
            return nil
        }
        return TransferOptions(
            destination: destination, progress: progress, streamBuffer: streamBuffer,
            maximumReceiveRate: maximumReceiveRate, maximumSendRate: maximumSendRate)
    }

    /// Why a rate given for one transfer cannot work, naming its parameter, or `nil`.
    static func rateProblem(_ rate: Int?) -> String? {
        guard let rate, rate <= 0 else { return nil }
        return "maximumRate must be a positive number of bytes a second (\(rate)); nil uses the configuration's"
    }
}
