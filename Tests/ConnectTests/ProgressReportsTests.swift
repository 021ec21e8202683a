import Testing

@testable import Connect

/// When a transfer's progress reaches the app, without a transfer: at most one report per
/// interval, the figures of the last tick in each, and the final figures at the end.
@Suite("Progress reports")
struct ProgressReportsTests {
    static let second: UInt64 = 1_000_000_000

    @Test func reportsAtMostOncePerInterval() {
        var reports = ProgressReports()
        func tick(_ downloaded: Int64, at now: UInt64) -> Int64? {
            reports.ticked(
                downloadTotal: 100, downloaded: downloaded, uploadTotal: 0, uploaded: 0, offset: 0, bodySize: nil,
                now: now)?.bytesReceived
        }
        #expect(tick(1, at: 5 * Self.second) == 1, "the first tick reports at once")
        #expect(tick(2, at: 5 * Self.second + 50_000_000) == nil)
        #expect(tick(3, at: 5 * Self.second + 99_999_999) == nil)
        #expect(tick(4, at: 5 * Self.second + ProgressReports.interval) == 4)
        #expect(reports.latest.bytesReceived == 4)
        #expect(tick(5, at: 5 * Self.second + ProgressReports.interval + 1) == nil)
        #expect(reports.latest.bytesReceived == 5, "the figures follow every tick")
    }

    struct FiguresCase: Sendable, CustomStringConvertible {
        var name: String
        var downloadTotal: Int64
        var uploadTotal: Int64
        var offset: Int64
        var bodySize: Int?
        var expected: TransferProgress
        var description: String { name }
    }

    @Test(arguments: [
        FiguresCase(
            name: "a download of known size", downloadTotal: 100, uploadTotal: 0, offset: 0, bodySize: nil,
            expected: TransferProgress(bytesSent: 3, totalBytesToSend: nil, bytesReceived: 7, totalBytesToReceive: 100)),
        FiguresCase(
            name: "a size the server did not give", downloadTotal: 0, uploadTotal: 0, offset: 0, bodySize: nil,
            expected: TransferProgress(bytesSent: 3, totalBytesToSend: nil, bytesReceived: 7, totalBytesToReceive: nil)),
        FiguresCase(
            name: "a resumed download counts what is on disk", downloadTotal: 100, uploadTotal: 0, offset: 50,
            bodySize: nil,
            expected: TransferProgress(bytesSent: 3, totalBytesToSend: nil, bytesReceived: 57, totalBytesToReceive: 150)
        ),
        FiguresCase(
            name: "an upload's size from libcurl", downloadTotal: 0, uploadTotal: 40, offset: 0, bodySize: 10,
            expected: TransferProgress(bytesSent: 3, totalBytesToSend: 40, bytesReceived: 7, totalBytesToReceive: nil)),
        FiguresCase(
            name: "an upload's size from the body when libcurl has none", downloadTotal: 0, uploadTotal: 0, offset: 0,
            bodySize: 10,
            expected: TransferProgress(bytesSent: 3, totalBytesToSend: 10, bytesReceived: 7, totalBytesToReceive: nil))
    ])
    func figures(_ row: FiguresCase) {
        var reports = ProgressReports()
        let report = reports.ticked(
            downloadTotal: row.downloadTotal, downloaded: 7, uploadTotal: row.uploadTotal, uploaded: 3,
            offset: row.offset, bodySize: row.bodySize, now: Self.second)
        #expect(report == row.expected)
    }

    @Test func theEndGivesTheFinalFigures() {
        var reports = ProgressReports()
        _ = reports.ticked(
            downloadTotal: 0, downloaded: 7, uploadTotal: 0, uploaded: 3, offset: 0, bodySize: 10, now: Self.second)
        let final = reports.ended(length: 90, received: 90, sent: 10, offset: 10)
        #expect(
            final == TransferProgress(bytesSent: 10, totalBytesToSend: 10, bytesReceived: 100, totalBytesToReceive: 100)
        )
        let unknown = reports.ended(length: -1, received: 5, sent: 10, offset: 0)
        #expect(unknown.totalBytesToReceive == 100, "a length the server did not give keeps the last known")
        #expect(unknown.bytesReceived == 5)
    }
}
