/// A transfer's progress as libcurl reports it, and when the app hears of it: at most one
/// report per ``interval`` while the transfer runs (libcurl calls back many times a second),
/// then the final figures once it ends. A plain value, tested without a transfer
/// (`ProgressReportsTests`); the transfer sends what it returns to the app's handler.
///
/// A resumed download (`206`) counts the bytes already on disk: `offset` is added to what
/// libcurl counts.
struct ProgressReports {
    /// The least time between two reports, in nanoseconds: about ten a second.
    static let interval: UInt64 = 100_000_000

    /// The figures as last reported by libcurl.
    private(set) var latest = TransferProgress()
    /// When the last report went out (the monotonic clock's nanoseconds; 0 before any).
    private var lastReport: UInt64 = 0

    /// libcurl's progress callback, at `now`: the figures to report, or `nil` when the last
    /// report is too recent. `bodySize`: the request body's size when known, for an upload
    /// libcurl does not know the size of.
    mutating func ticked(
        downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64, offset: Int64, bodySize: Int?,
        now: UInt64
    ) -> TransferProgress? {
        latest = TransferProgress(
            bytesSent: uploaded,
            totalBytesToSend: uploadTotal > 0 ? uploadTotal : bodySize.map(Int64.init),
            bytesReceived: downloaded + offset,
            totalBytesToReceive: downloadTotal > 0 ? downloadTotal + offset : nil)
        guard lastReport == 0 || now - lastReport >= Self.interval else { return nil }
        lastReport = now
        return latest
    }

    /// The transfer ended with these figures (`length` is negative when the server gave none):
    /// the final report.
    mutating func ended(length: Int64, received: Int64, sent: Int64, offset: Int64) -> TransferProgress {
        latest.bytesReceived = received + offset
        latest.bytesSent = sent
        if length >= 0 { latest.totalBytesToReceive = length + offset }
        return latest
    }
}
