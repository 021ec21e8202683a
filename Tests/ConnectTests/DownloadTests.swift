import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// A body of `count` bytes that differs from its own shifted copy, so a wrong offset shows: the
/// byte at index `i` is `(31i + i / 256) mod 256`, which repeats every 64 KiB.
///
/// Copied from that one period, never computed byte by byte (see ``cyclicBytes(_:times:plus:modulo:)``).
func pattern(_ count: Int) -> Data {
    var data = patternPeriod.prefix(count)
    data.reserveCapacity(count)
    while data.count < count {
        data.append(data.prefix(count - data.count))
    }
    return data
}

/// The first 64 KiB of ``pattern(_:)``, made once per test process.
private let patternPeriod: Data = {
    var data = Data(count: 1 << 16)
    data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
        for index in 0..<bytes.count {
            bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8)
        }
    }
    return data
}()

/// `count` bytes, the one at index `i` being `(i × multiplier + offset) mod modulo`: a body whose
/// bytes follow their index, so a byte out of place shows.
///
/// Built from one period copied over and over, never byte by byte: a `map` over a range costs a
/// generic call per byte in debug builds, and under ThreadSanitizer the megabyte bodies of these
/// tests held one of the cooperative pool's two threads for seconds each; a few at once left no
/// thread for any other test, whose deadlines then ran out.
func cyclicBytes(_ count: Int, times multiplier: Int = 1, plus offset: Int = 0, modulo: Int = 251) -> Data {
    var period = [UInt8](repeating: 0, count: modulo)
    for index in 0..<modulo {
        period[index] = UInt8(((index &* multiplier &+ offset) % modulo + modulo) % modulo)
    }
    var data = Data(period.prefix(count))
    data.reserveCapacity(count)
    // The data is a whole number of periods until the last copy, so each copy keeps the phase.
    while data.count < count {
        data.append(data.prefix(count - data.count))
    }
    return data
}

func scratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("connect-downloads-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("Downloads", .timeLimit(.minutes(3)))
struct DownloadTests {
    @Test func downloadsToAFileWithMonotonicCompleteProgress() async throws {
        let body = pattern(600_000)
        let server = try TestServer { _ in
            TestResponse(body: body, behavior: .trickle(chunk: 60_000, every: .milliseconds(40)))
        }
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("video.bin")
        let reports = Recorder()
        let seen = Locked<[TransferProgress]>([])
        let file = try await sharedConnect.download(
            TestConnector(server, "/video"), to: destination,
            progress: ProgressHandler { progress in
                seen.withLock { $0.append(progress) }
                reports.append("\(progress.bytesReceived)")
            }
        ).value
        #expect(file.location == destination)
        #expect(file.response.body.isEmpty && file.response.fileURL == destination)
        #expect(try Data(contentsOf: destination) == body)
        let progress = seen.withLock { $0 }
        #expect(progress.count >= 3)  // throttled, but a slow body reports along the way
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
        #expect(progress.last?.bytesReceived == Int64(body.count))
        #expect(progress.last?.totalBytesToReceive == Int64(body.count))
        #expect(progress.last?.fractionCompleted == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["video.bin"])
    }

    @Test func progressAsAnAsyncSequence() async throws {
        let body = pattern(300_000)
        let server = try TestServer { _ in
            TestResponse(body: body, behavior: .trickle(chunk: 50_000, every: .milliseconds(30)))
        }
        defer { server.shutdown() }
        let (updates, handler) = TransferProgress.stream()
        let download = sharedConnect.download(TestConnector(server, "/file"), progress: handler)
        var last: TransferProgress?
        for await update in updates { last = update }  // ends when the download does
        let file = try await download.value
        defer { try? FileManager.default.removeItem(at: file.location) }
        #expect(last?.bytesReceived == Int64(body.count))
        #expect(try Data(contentsOf: file.location) == body)
    }

    @Test func cancellingMidDownloadLeavesNoFile() async throws {
        // Part of the body, then nothing: the download can only end by being cancelled.
        let body = pattern(1_000_000)
        let server = try TestServer { _ in TestResponse(body: body, behavior: .stallAfter(bytes: 200_000)) }
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let received = Locked<Int64>(0)
        let download = sharedConnect.download(
            TestConnector(server, "/big"), to: directory.appendingPathComponent("big.bin"),
            progress: ProgressHandler { progress in received.withLock { $0 = progress.bytesReceived } })
        #expect(await eventually { received.withLock { $0 } > 0 })
        download.cancel()
        #expect(await connectError(download) == .cancelled)
        #expect(
            await eventually { (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true }
        )
    }

    @Test func anErrorStatusNeverTouchesTheFile() async throws {
        let server = try TestServer { _ in .json(#"{"message":"No such episode"}"#, status: 404) }
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("keep.txt")
        try Data("precious".utf8).write(to: destination)
        let error = await connectError(sharedConnect.download(TestConnector(server, "/missing"), to: destination))
        #expect(error?.description == "HTTP 404 Not Found: No such episode")
        #expect(try Data(contentsOf: destination) == Data("precious".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["keep.txt"])
    }

    @Test func anEmptyBodyMakesAnEmptyFile() async throws {
        let server = try TestServer { _ in TestResponse(status: 200) }
        defer { server.shutdown() }
        let file = try await sharedConnect.download(TestConnector(server, "/empty")).value
        defer { try? FileManager.default.removeItem(at: file.location) }
        #expect(try Data(contentsOf: file.location).isEmpty)
    }

    @Test func uploadProgressReachesTheWholeSize() async throws {
        let server = try TestServer { request in .text("\(request.body.count)") }
        defer { server.shutdown() }
        let contents = pattern(2_000_000)
        let fileURL = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        let last = Locked<TransferProgress?>(nil)
        let body = try await sharedConnect.upload(
            fileAt: fileURL, to: TestConnector(server, "/up", method: .put),
            progress: ProgressHandler { progress in last.withLock { $0 = progress } }
        ).value
        #expect(String(decoding: body, as: UTF8.self) == "2000000")
        #expect(last.withLock { $0 }?.bytesSent == 2_000_000)
        #expect(last.withLock { $0 }?.totalBytesToSend == 2_000_000)
    }

    /// The file destination rides beside the request, not in it: an adapter that makes a new
    /// request (rather than changing the one it got) still downloads to the file.
    @Test func anAdapterThatMakesANewRequestKeepsTheDownloadsFile() async throws {
        struct Rebuilding: RequestAdapter {
            func adapt(_ request: Request) async throws -> Request {
                Request(
                    method: request.method, url: request.url,
                    headers: request.headers + [HTTPHeader(name: "X-Rebuilt", value: "1")])
            }
        }
        let body = pattern(70_000)
        let server = try rangeServer(RangeResource(body))
        defer { server.shutdown() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("rebuilt.bin")
        let connect = Connect(middleware: ConnectMiddleware(adapters: [Rebuilding()]))
        let file = try await connect.download(TestConnector(server, "/file"), to: destination).value
        #expect(file.response.body.isEmpty && file.response.fileURL == destination)
        #expect(try Data(contentsOf: destination) == body)
        #expect(server.requests.last?.header("X-Rebuilt") == "1")
    }

    /// A transport of the app's own carries plain requests: a download through it fails with a
    /// typed error instead of reporting a file nobody wrote.
    @Test func aDownloadThroughATransportOfTheAppsOwnFailsWithATypedError() async throws {
        struct Canned: Transport {
            func send(_ request: Request) -> Future<Response> {
                Future(value: Response(statusCode: 200, headers: [], body: Data("body".utf8), url: request.url))
            }
            func cancelAll() {}
        }
        let connect = Connect(transport: Canned())
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("never.bin")
        await #expect {
            _ = try await connect.download(TodoConnector.get(id: 1), to: destination).value
        } throws: { error in
            guard case .invalidRequest(let message)? = error as? ConnectError else { return false }
            return message.contains("Canned") && message.contains("download to a file")
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        // Plain requests go through it as before.
        #expect(try await connect.request(TodoConnector.get(id: 1)).value == Data("body".utf8))
    }
}
