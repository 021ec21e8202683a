import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// A file a test server serves with ranges: its bytes and entity tag, which a test may change
/// between two requests.
final class RangeResource: Sendable {
    private let current: Locked<(body: Data, etag: String?)>

    init(_ body: Data, etag: String? = "\"v1\"") {
        current = Locked((body, etag))
    }

    var body: Data { current.withLock { $0.body } }

    func change(to body: Data, etag: String?) {
        current.withLock { $0 = (body, etag) }
    }

    /// The answer a server that honours `Range: bytes=N-` and `If-Range` gives `request`: a 206
    /// with the rest when the range is satisfiable and `If-Range` (if sent) is the current tag,
    /// else the whole file; `ignoreRange` always sends the whole file.
    func response(to request: RecordedRequest, ignoreRange: Bool, behavior: TestResponse.Behavior) -> TestResponse {
        let (body, etag) = current.withLock { $0 }
        let tag: [(String, String)] = etag.map { [("ETag", $0)] } ?? []
        if !ignoreRange, let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst(6).dropLast()), start < body.count,
            request.header("If-Range").map({ $0 == etag }) ?? true
        {
            return TestResponse(
                status: 206, headers: [("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)")] + tag,
                body: body.suffix(from: start), behavior: behavior)
        }
        return TestResponse(headers: tag, body: body, behavior: behavior)
    }
}

/// Serves `resource`, honouring ranges and `If-Range` unless `ignoreRange`; `behavior` says how
/// the n-th answer (from 1) is sent.
func rangeServer(
    _ resource: RangeResource, ignoreRange: Bool = false,
    behavior: @escaping @Sendable (Int) -> TestResponse.Behavior = { _ in .respond }
) throws -> TestServer {
    let hits = Hits()
    return try TestServer { request in
        resource.response(to: request, ignoreRange: ignoreRange, behavior: behavior(hits.next()))
    }
}

/// Resumed downloads continue the same version of a file and nothing else: `If-Range` with the
/// validator recorded beside the partial file, a 200 starting the file over, a part that is not
/// the rest refused; against the in-process server and against nginx's own ranges.
@Suite("Resumed downloads", .timeLimit(.minutes(3)))
struct ResumeTests {
    @Test func resumesAfterTheServerDropsTheConnectionHalfway() async throws {
        let resource = RangeResource(pattern(400_000))
        let server = try rangeServer(resource) { hit in hit == 1 ? .truncate(after: 150_000) : .respond }
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("episode.mp4")

        let first = await connectError(
            sharedConnect.download(TestConnector(server, "/episode"), to: destination, resuming: true))
        guard case .transport? = first else {
            Issue.record("expected the first try to fail, got \(String(describing: first))")
            return
        }
        #expect(try Data(contentsOf: destination) == resource.body.prefix(150_000))
        let record = try String(contentsOfFile: ResumeRecord.path(for: destination), encoding: .utf8)
        #expect(ResumeRecord(text: record) == ResumeRecord(validator: "\"v1\"", completeLength: 400_000))
        #expect(server.requests.first?.header("Accept-Encoding") == "identity")

        let file = try await sharedConnect.download(TestConnector(server, "/episode"), to: destination, resuming: true)
            .value
        #expect(file.resumed)
        #expect(file.response.statusCode == 206)
        #expect(server.requests.last?.header("Range") == "bytes=150000-")
        #expect(server.requests.last?.header("If-Range") == "\"v1\"")
        #expect(try Data(contentsOf: destination) == resource.body)
        #expect(!FileManager.default.fileExists(atPath: ResumeRecord.path(for: destination)))
    }

    /// The defect this guards against: a file that changed on the server between two tries was
    /// spliced from both versions and reported as a success.
    @Test func aFileThatChangedBetweenTriesStartsOverInsteadOfSplicing() async throws {
        let resource = RangeResource(pattern(400_000))
        let server = try rangeServer(resource) { hit in hit == 1 ? .truncate(after: 150_000) : .respond }
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.csv")
        _ = await connectError(
            sharedConnect.download(TestConnector(server, "/report"), to: destination, resuming: true))
        #expect(try Data(contentsOf: destination).count == 150_000)

        let second = Data(pattern(450_000).reversed())
        resource.change(to: second, etag: "\"v2\"")
        let file = try await sharedConnect.download(TestConnector(server, "/report"), to: destination, resuming: true)
            .value
        #expect(server.requests.last?.header("If-Range") == "\"v1\"")
        #expect(!file.resumed && file.response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == second)
    }

    /// A try that failed after the body's last byte left a whole file: the next asks for that
    /// byte again (a range from the end would be answered 416) and completes.
    @Test func aFileAlreadyWholeIsConfirmedByItsLastByte() async throws {
        let resource = RangeResource(pattern(100_000))
        let server = try rangeServer(resource)
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("whole.bin")
        try resource.body.write(to: destination)
        try ResumeRecord(validator: "\"v1\"", completeLength: 100_000).text
            .write(toFile: ResumeRecord.path(for: destination), atomically: true, encoding: .utf8)

        let file = try await sharedConnect.download(TestConnector(server, "/whole"), to: destination, resuming: true)
            .value
        #expect(server.requests.first?.header("Range") == "bytes=99999-")
        #expect(file.resumed && file.response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == resource.body)
    }

    @Test func aPartialFileWithoutARecordIsDownloadedAgainWhole() async throws {
        let resource = RangeResource(pattern(200_000))
        let server = try rangeServer(resource)
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("data.bin")
        try Data(repeating: 0xEE, count: 50_000).write(to: destination)  // a partial file from elsewhere

        let file = try await sharedConnect.download(TestConnector(server, "/data"), to: destination, resuming: true)
            .value
        #expect(server.requests.first?.header("Range") == nil)
        #expect(server.requests.first?.header("If-Range") == nil)
        #expect(!file.resumed && file.response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == resource.body)
    }

    @Test func startsOverWhenTheServerIgnoresTheRange() async throws {
        let resource = RangeResource(pattern(200_000))
        let server = try rangeServer(resource, ignoreRange: true)
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("data.bin")
        try Data(repeating: 0xEE, count: 50_000).write(to: destination)
        try ResumeRecord(validator: "\"v1\"", completeLength: 200_000).text
            .write(toFile: ResumeRecord.path(for: destination), atomically: true, encoding: .utf8)

        let file = try await sharedConnect.download(TestConnector(server, "/data"), to: destination, resuming: true)
            .value
        #expect(server.requests.first?.header("Range") == "bytes=50000-")
        #expect(!file.resumed && file.response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == resource.body)
    }

    /// A server that answers the range with another version's part (its ETag differs from the
    /// one sent in If-Range, which a correct server would have answered with a 200) is refused,
    /// and the partial file is left as it was.
    @Test func aPartOfAnotherVersionIsRefused() async throws {
        let body = pattern(200_000)
        let server = try TestServer { _ in
            TestResponse(
                status: 206, headers: [("Content-Range", "bytes 50000-199999/200000"), ("ETag", "\"v2\"")],
                body: body.suffix(from: 50_000))
        }
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("data.bin")
        try body.prefix(50_000).write(to: destination)
        try ResumeRecord(validator: "\"v1\"", completeLength: 200_000).text
            .write(toFile: ResumeRecord.path(for: destination), atomically: true, encoding: .utf8)

        let error = await connectError(
            sharedConnect.download(TestConnector(server, "/data"), to: destination, resuming: true))
        guard case .transport(let failure)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .malformedResponse)
        #expect(failure.message.contains("\"v2\"") && failure.message.contains("\"v1\""))
        #expect(try Data(contentsOf: destination) == body.prefix(50_000))
    }

    /// nginx's own range and If-Range handling (its ETag is the file's modification time and
    /// length): a download cut short by cancelling continues with a 206 while the file is
    /// unchanged, and starts over with a 200 once it changed.
    @Test func nginxContinuesTheSameFileAndRestartsAChangedOne() async throws {
        let root = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("files"), withIntermediateDirectories: true)
        let served = root.appendingPathComponent("files/episode.bin")
        let first = pattern(300_000)
        try first.write(to: served)
        // A request without a Range gets its first 64 KiB at once, then 2 KB a second, so that a
        // download can be cancelled halfway however long the test task waits for a thread
        // (under ThreadSanitizer, a minute at times); a request with one is not held back.
        let nginx = try await NginxServer(sites: [
            NginxServer.Site(
                certificate: "localhost",
                locations: #"location /files/ { root \#(root.path); if ($http_range = "") { set $limit_rate 2k; } }"#,
                cleartext: true, directives: "limit_rate_after 64k;")
        ])
        defer { nginx.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("episode.bin")
        let url = nginx.url(0, "/files/episode.bin")

        try await cancelHalfway(url, to: destination)
        let resumed = try await sharedConnect.download(TestConnector(url: url), to: destination, resuming: true)
            .value
        #expect(resumed.resumed && resumed.response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == first)

        // The same length, another modification time: another ETag and Last-Modified.
        try FileManager.default.removeItem(at: destination)
        try await cancelHalfway(url, to: destination)
        let second = Data(first.reversed())
        try second.write(to: served)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: served.path)
        let restarted = try await sharedConnect.download(
            TestConnector(url: url), to: destination, resuming: true
        ).value
        #expect(!restarted.resumed && restarted.response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == second)
    }

    /// Starts a resumable download of `url` and cancels it once part of the body is on disk
    /// (watched on disk, which the transfer thread writes, rather than through progress reports,
    /// which wait for the callback queue).
    private func cancelHalfway(_ url: URL, to destination: URL) async throws {
        let download = sharedConnect.download(TestConnector(url: url), to: destination, resuming: true)
        #expect(await eventually { (FileSink.sizeOfFile(at: destination) ?? 0) > 66_000 })
        download.cancel()
        #expect(await connectError(download) == .cancelled)
        let size = FileSink.sizeOfFile(at: destination) ?? 0
        #expect(size > 0 && size < 300_000)
        #expect(FileManager.default.fileExists(atPath: ResumeRecord.path(for: destination)))
    }
}
