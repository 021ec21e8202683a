import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// The disk store and its file format: a round trip, every truncation and every damaged byte
/// refused, what a killed writer leaves cleaned up, restarts, the capacity, and many tasks on
/// one directory.
@Suite("Disk cache store", .timeLimit(.minutes(2)))
struct DiskCacheStoreTests {
    static func response(
        _ url: String, body: Int = 100, vary: String? = nil, request: [(String, String)] = []
    )
        -> CachedResponse
    {
        var headers = [HTTPHeader(name: "Cache-Control", value: "max-age=60"), HTTPHeader(name: "ETag", value: "\"é\"")]
        if let vary { headers.append(HTTPHeader(name: "Vary", value: vary)) }
        return CachedResponse(
            url: url, status: 200, headers: headers, body: Data((0..<body).map { UInt8(truncatingIfNeeded: $0) }),
            requestHeaders: request.map { HTTPHeader(name: $0.0, value: $0.1) }, requestTime: 1_700_000_000,
            responseTime: 1_700_000_001, httpVersion: "2")
    }

    // MARK: The format

    @Test func anEntryReadsBackAsItWasWritten() throws {
        let response = Self.response(
            "https://a.example/x?q=1", body: 1000, vary: "Accept", request: [("Accept", "a/b")])
        let bytes = CacheEntryFormat.encoded(response)
        #expect(CacheEntryFormat.decoded(bytes) == response)
        let head = try #require(CacheEntryFormat.head(Array(bytes.prefix(bytes.count - 1004))))
        #expect(head.url == response.url && head.headers == response.headers)
        #expect(head.varyingRequestHeaders == response.varyingRequestHeaders)
        #expect(head.bodyLength == 1000 && head.fileLength == bytes.count)
        #expect(
            CacheEntryFormat.decoded(CacheEntryFormat.encoded(Self.response("https://a.example/", body: 0)))?.body
                == Data())
    }

    @Test func everyTruncationAndEveryDamagedByteIsRefused() {
        let bytes = CacheEntryFormat.encoded(Self.response("https://a.example/x", body: 64))
        for length in 0..<bytes.count {
            #expect(CacheEntryFormat.decoded(Array(bytes.prefix(length))) == nil, "cut at \(length)")
        }
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x10
            #expect(CacheEntryFormat.decoded(damaged) == nil, "byte \(index) damaged")
        }
        #expect(CacheEntryFormat.decoded(bytes + [0]) == nil)
        #expect(CacheEntryFormat.decoded(Array("GIF89a not an entry at all".utf8)) == nil)
    }

    @Test func aFieldThatWouldSplitAHeaderIsRefused() {
        let response = CachedResponse(
            url: "https://a.example/", status: 200,
            headers: [HTTPHeader(name: "ETag", value: "\"a\"\r\nX-Injected: 1")],
            body: Data(), requestHeaders: [], requestTime: 0, responseTime: 0)
        #expect(CacheEntryFormat.decoded(CacheEntryFormat.encoded(response)) == nil)
    }

    // MARK: The store

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("connect-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func files(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func whatIsStoredSurvivesARestart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory, capacity: 100_000)
        let english = Self.response(
            "https://a.example/x", vary: "Accept-Language", request: [("Accept-Language", "en")])
        let german = Self.response("https://a.example/x", vary: "Accept-Language", request: [("Accept-Language", "de")])
        store.store(english)
        store.store(german)
        // Before its file is written, and after.
        #expect(store.response(for: english.url, requestHeaders: english.varyingRequestHeaders) == english)
        store.flush()
        #expect(Self.files(directory).count == 2 && Self.files(directory).allSatisfy { $0.hasSuffix(".entry") })
        #expect(store.response(for: german.url, requestHeaders: german.varyingRequestHeaders) == german)

        let reopened = try DiskCacheStore(directory: directory, capacity: 100_000)
        #expect(reopened.byteCount == store.byteCount)
        #expect(reopened.response(for: english.url, requestHeaders: english.varyingRequestHeaders) == english)
        #expect(reopened.response(for: german.url, requestHeaders: german.varyingRequestHeaders) == german)
        #expect(reopened.response(for: german.url, requestHeaders: []) == nil)
        // Replacing a variant replaces its file.
        let newer = Self.response(
            "https://a.example/x", body: 7, vary: "Accept-Language", request: [("Accept-Language", "en")])
        reopened.store(newer)
        reopened.flush()
        #expect(Self.files(directory).count == 2)
        #expect(reopened.response(for: newer.url, requestHeaders: newer.varyingRequestHeaders) == newer)
        reopened.remove(newer.url)
        reopened.flush()
        #expect(Self.files(directory).isEmpty && reopened.byteCount == 0)
    }

    @Test func whatAKilledWriterOrAnotherProgramLeftIsAMiss() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = CacheEntryFormat.encoded(Self.response("https://a.example/good"))
        var damaged = CacheEntryFormat.encoded(Self.response("https://a.example/damaged"))
        damaged[damaged.count - 10] ^= 0xFF
        let files: [(String, [UInt8])] = [
            ("00000000000000000000000000000001.entry", good),
            // A writer killed before its rename, and one that got only half its bytes out.
            ("00000000000000000000000000000002.entry.tmp", Array(good.prefix(50))),
            ("00000000000000000000000000000003.entry", Array(good.prefix(good.count / 2))),
            // The right length, a wrong checksum: found when read.
            ("00000000000000000000000000000004.entry", damaged),
            ("00000000000000000000000000000005.entry", Array("not Connect's".utf8)),
            ("notes.txt", Array("someone else's".utf8))
        ]
        for (name, bytes) in files {
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
        let store = try DiskCacheStore(directory: directory, capacity: 100_000)
        store.flush()
        #expect(
            Self.files(directory) == [
                "00000000000000000000000000000001.entry", "00000000000000000000000000000004.entry", "notes.txt"
            ])
        #expect(store.response(for: "https://a.example/good", requestHeaders: []) != nil)
        #expect(store.response(for: "https://a.example/damaged", requestHeaders: []) == nil)
        store.flush()
        #expect(Self.files(directory) == ["00000000000000000000000000000001.entry", "notes.txt"])
        #expect(store.byteCount == good.count)
        store.removeAll()
        store.flush()
        #expect(Self.files(directory) == ["notes.txt"])
    }

    @Test func theLeastRecentlyUsedGoWithinTheCapacityAcrossRestarts() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = CacheEntryFormat.encoded(Self.response("https://a.example/1", body: 1000)).count
        let store = try DiskCacheStore(directory: directory, capacity: size * 3)
        for index in 1...3 { store.store(Self.response("https://a.example/\(index)", body: 1000)) }
        _ = store.response(for: "https://a.example/1", requestHeaders: [])
        store.store(Self.response("https://a.example/4", body: 1000))
        store.flush()
        #expect(store.response(for: "https://a.example/2", requestHeaders: []) == nil)
        #expect(Self.files(directory).count == 3 && store.byteCount == size * 3)
        // Reopened smaller: the least recently used (by their files' times) go.
        let smaller = try DiskCacheStore(directory: directory, capacity: size * 2)
        smaller.flush()
        #expect(Self.files(directory).count == 2 && smaller.byteCount <= size * 2)
        // Larger than the whole capacity: not stored.
        smaller.store(Self.response("https://a.example/huge", body: size * 3))
        smaller.flush()
        #expect(smaller.response(for: "https://a.example/huge", requestHeaders: []) == nil)
        #expect(Self.files(directory).count == 2)
    }

    @Test func clientsOfOneProcessShareADirectorySafely() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ResponseCache(directory: directory, capacity: 200_000)
        let second = try ResponseCache(directory: directory, capacity: 1)
        #expect(second.capacity == 200_000)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let cache = task.isMultiple(of: 2) ? first : second
                    for index in 0..<50 {
                        let url = "https://a.example/\(index % 20)"
                        cache.store.store(Self.response(url, body: 500 + task))
                        _ = cache.store.response(for: url, requestHeaders: [])
                        if index.isMultiple(of: 7) { cache.store.remove(url) }
                    }
                }
            }
        }
        (first.store as? DiskCacheStore)?.flush()
        #expect(first.byteCount <= 200_000)
        let onDisk = Self.files(directory).filter { $0.hasSuffix(".entry") }
        let reopened = try DiskCacheStore(directory: directory, capacity: 200_000)
        #expect(reopened.byteCount == first.byteCount)
        #expect(onDisk.count <= 20)
    }

    @Test func aClientAnswersFromTheDiskAfterARestart() async throws {
        let server = try TestServer { _ in .text("kept", headers: [("Cache-Control", "max-age=31536000")]) }
        defer { server.shutdown() }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func client() throws -> Connect {
            var configuration = ConnectConfiguration()
            configuration.cache = ResponseCache(store: try DiskCacheStore(directory: directory, capacity: 1 << 20))
            return Connect(configuration: configuration)
        }
        let first = try client()
        #expect(try await first.request(TestConnector(server, "/a")).value == Data("kept".utf8))
        // Stored before the first request's future completed: the next is a hit, whether or not
        // the file is written yet.
        let again = try await first.send(Request(url: server.baseURL.appendingPathComponent("a"))).value
        #expect(again.cacheStatus == .hit)
        // What a command-line tool does before it exits.
        first.configuration.cache?.flush()
        #expect(Self.files(directory).filter { $0.hasSuffix(".entry") }.count == 1)
        let afterRestart = try client()
        let response = try await afterRestart.send(Request(url: server.baseURL.appendingPathComponent("a"))).value
        #expect(response.cacheStatus == .hit && response.body == Data("kept".utf8))
        #expect(server.requests.count == 1)
    }
}
