/// How far an upload or download has come.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Request body bytes sent so far.
    public var bytesSent: Int64
    /// The request body's size, when known.
    public var totalBytesToSend: Int64?
    /// Response body bytes received so far (for a resumed download, the bytes already on disk
    /// included).
    public var bytesReceived: Int64
    /// The response body's size, when the server said.
    public var totalBytesToReceive: Int64?

    /// Creates a progress value.
    public init(
        bytesSent: Int64 = 0, totalBytesToSend: Int64? = nil, bytesReceived: Int64 = 0,
        totalBytesToReceive: Int64? = nil
    ) {
        self.bytesSent = bytesSent
        self.totalBytesToSend = totalBytesToSend
        self.bytesReceived = bytesReceived
        self.totalBytesToReceive = totalBytesToReceive
    }

    /// The share done, from 0 to 1: of the download if there is one, else of the upload;
    /// `nil` when the size is unknown.
    public var fractionCompleted: Double? {
        if let total = totalBytesToReceive, total > 0 { return min(1, Double(bytesReceived) / Double(total)) }
        if let total = totalBytesToSend, total > 0, totalBytesToReceive == nil || bytesReceived == 0 {
            return min(1, Double(bytesSent) / Double(total))
        }
        return nil
    }

    public var description: String {
        let percent = fractionCompleted.map { " (\(Int($0 * 100))%)" } ?? ""
        return
            "sent \(bytesSent)/\(totalBytesToSend.map(String.init) ?? "?"), received \(bytesReceived)/\(totalBytesToReceive.map(String.init) ?? "?")\(percent)"
    }

    /// A handler to pass as `progress:` and the stream it feeds, for `async` code:
    ///
    /// ```swift
    /// let (updates, progress) = TransferProgress.stream()
    /// let download = connect.download(VideoConnector.episode(3), progress: progress)
    /// for await update in updates { bar.value = update.fractionCompleted ?? 0 }
    /// let file = try await download.value
    /// ```
    /// The stream ends when the request does (after any retries).
    public static func stream() -> (updates: AsyncStream<TransferProgress>, handler: ProgressHandler) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        let handler = ProgressHandler(report: { continuation.yield($0) }, finish: { continuation.finish() })
        return (stream, handler)
    }
}
