import Connect
import ConnectFutures
import ConnectTestServer
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `chunks` chunks of `chunkSize` bytes (each byte its offset modulo 251), counting what it
/// produced and how many iterators are alive; endless when `chunks` is `nil`. Throws `failure` after `failAfter` chunks.
struct GeneratedBytes: AsyncSequence, Sendable {
    typealias Element = [UInt8]

    let chunkSize: Int
    let chunks: Int?
    var failAfter: Int?
    let produced = Produced()

    final class Produced: Sendable {
        let bytes = Atomic<Int>(0)
        let passes = Atomic<Int>(0)
        /// Iterators made and not yet let go of.
        let iterating = Atomic<Int>(0)
    }

    /// Counts an iterator while it lives.
    final class IteratorToken: Sendable {
        let produced: Produced

        init(_ produced: Produced) {
            self.produced = produced
            produced.iterating.add(1, ordering: .relaxed)
        }

        deinit { produced.iterating.subtract(1, ordering: .relaxed) }
    }

    struct Failure: Error, Equatable {}

    static func expected(_ count: Int) -> Data {
        cyclicBytes(count)
    }

    func makeAsyncIterator() -> Iterator {
        produced.passes.add(1, ordering: .relaxed)
        return Iterator(sequence: self, token: IteratorToken(produced))
    }

    struct Iterator: AsyncIteratorProtocol {
        let sequence: GeneratedBytes
        let token: IteratorToken
        var index = 0

        mutating func next() async throws(Failure) -> [UInt8]? {
            if let failAfter = sequence.failAfter, index == failAfter { throw Failure() }
            if let chunks = sequence.chunks, index == chunks { return nil }
            let start = index * sequence.chunkSize
            index += 1
            sequence.produced.bytes.add(sequence.chunkSize, ordering: .relaxed)
            return [UInt8](cyclicBytes(sequence.chunkSize, plus: start))
        }
    }
}

@Suite("Request bodies from an AsyncSequence")
struct StreamedBodyTests {
    let server: TestServer

    init() throws {
        let unavailable = Atomic<Bool>(true)
        server = try TestServer { request in
            switch request.path {
            case "/unavailable-once":
                return .text("retry", status: unavailable.exchange(false, ordering: .relaxed) ? 503 : 200)
            case "/moved":
                return TestResponse(status: 307, headers: [("Location", "/echo")])
            default:
                return TestResponse(status: 200, body: request.body)
            }
        }
    }

    @Test func aBodyOfUnknownLengthGoesOutChunked() async throws {
        let bytes = GeneratedBytes(chunkSize: 10_000, chunks: 300)
        let request = Request(method: .post, url: server.baseURL.appending(path: "echo"), body: .stream(bytes))
        let response = try await sharedConnect.send(request).value
        #expect(response.body == GeneratedBytes.expected(3_000_000))
        let recorded = try #require(server.requests.last)
        #expect(recorded.header("Transfer-Encoding") == "chunked")
        #expect(recorded.header("Content-Length") == nil)
        #expect(recorded.header("Content-Type") == "application/octet-stream")
    }

    @Test func aBodyOfKnownLengthSendsContentLength() async throws {
        let bytes = GeneratedBytes(chunkSize: 4096, chunks: 100)
        let request = Request(
            method: .put, url: server.baseURL.appending(path: "echo"),
            body: .stream(bytes, count: 409_600, contentType: "application/x-test"))
        let response = try await sharedConnect.send(request).value
        #expect(response.body == GeneratedBytes.expected(409_600))
        let recorded = try #require(server.requests.last)
        #expect(recorded.method == "PUT")
        #expect(recorded.header("Content-Length") == "409600")
        #expect(recorded.header("Transfer-Encoding") == nil)
        #expect(recorded.header("Content-Type") == "application/x-test")
    }

    @Test func chunksOfEveryKindAndEmptyOnesAreSentInOrder() async throws {
        let parts: [Data] = [Data("he".utf8), Data(), Data("llo".utf8), Data(), Data(" world".utf8)]
        let stream = AsyncStream<Data> { continuation in
            for part in parts { continuation.yield(part) }
            continuation.finish()
        }
        let request = Request(method: .post, url: server.baseURL.appending(path: "echo"), body: .stream(stream))
        #expect(try await sharedConnect.send(request).value.body == Data("hello world".utf8))

        let slices = AsyncStream<ArraySlice<UInt8>> { continuation in
            continuation.yield(ArraySlice(Array("abc".utf8))[1...])
            continuation.finish()
        }
        let second = Request(
            method: .post, url: server.baseURL.appending(path: "echo"), body: .stream(slices, count: 2))
        #expect(try await sharedConnect.send(second).value.body == Data("bc".utf8))
    }

    @Test func anEmptySequenceSendsAnEmptyBody() async throws {
        let request = Request(
            method: .post, url: server.baseURL.appending(path: "echo"),
            body: .stream(GeneratedBytes(chunkSize: 1, chunks: 0)))
        let response = try await sharedConnect.send(request).value
        #expect(response.body.isEmpty)
        #expect(server.requests.last?.body.isEmpty == true)
    }

    @Test func anErrorTheSequenceThrowsFailsTheRequestWithIt() async throws {
        let bytes = GeneratedBytes(chunkSize: 1000, chunks: 100, failAfter: 5)
        let request = Request(method: .post, url: server.baseURL.appending(path: "echo"), body: .stream(bytes))
        let result = await outcome(sharedConnect.send(request))
        #expect(throws: GeneratedBytes.Failure.self) { try result.get() }
    }

    @Test(arguments: [(chunks: 3, declared: 4000), (chunks: 5, declared: 4000)])
    func aSequenceThatBreaksItsDeclaredLengthIsRefused(chunks: Int, declared: Int) async throws {
        let bytes = GeneratedBytes(chunkSize: 1000, chunks: chunks)
        let request = Request(
            method: .post, url: server.baseURL.appending(path: "echo"), body: .stream(bytes, count: declared))
        let error = await connectError(sharedConnect.send(request))
        guard case .invalidRequest(let message)? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(message.contains("\(declared) bytes it declared"))
    }

    @Test func aOneTimeBodyIsNotRetriedAfterItWasRead() async throws {
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))
        let bytes = GeneratedBytes(chunkSize: 1000, chunks: 10)
        var request = Request(
            method: .put, url: server.baseURL.appending(path: "unavailable-once"), body: .stream(bytes))
        request.allowsRetry = true
        let error = await connectError(connect.send(request))
        guard case .transport(let failure)? = error else {
            Issue.record("expected a transport failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .bodyNotReplayable)
        #expect(failure.message.contains("503"))
        #expect(bytes.produced.passes.load(ordering: .relaxed) == 1)
        #expect(!request.body!.isReplayable)
    }

    @Test func aReplayableBodyIsSentAgainOnARetry() async throws {
        let connect = Connect(middleware: ConnectMiddleware(retrier: quickPolicy))
        let template = GeneratedBytes(chunkSize: 1000, chunks: 10)
        let request = Request(
            method: .put, url: server.baseURL.appending(path: "unavailable-once"),
            body: .stream(count: 10_000, replayable: { template }))
        let before = server.requests.count
        let response = try await connect.send(request).value
        #expect(response.statusCode == 200)
        let attempts = server.requests.dropFirst(before)
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.body == GeneratedBytes.expected(10_000) })
        #expect(template.produced.passes.load(ordering: .relaxed) == 2)
    }

    @Test func aRedirectThatKeepsTheBodyNeedsAReplayableOne() async throws {
        let oneTime = Request(
            method: .post, url: server.baseURL.appending(path: "moved"),
            body: .stream(GeneratedBytes(chunkSize: 100, chunks: 3)))
        let error = await connectError(sharedConnect.send(oneTime))
        guard case .transport(let failure)? = error else {
            Issue.record("expected a transport failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .bodyNotReplayable)

        let replayable = Request(
            method: .post, url: server.baseURL.appending(path: "moved"),
            body: .stream(replayable: { GeneratedBytes(chunkSize: 100, chunks: 3) }))
        let response = try await sharedConnect.send(replayable).value
        #expect(response.body == GeneratedBytes.expected(300))
    }

    /// A server that accepts connections but never reads: the sequence must be pulled no
    /// further than the socket buffers and the pump's 256 KiB, and stop when cancelled.
    @Test func theSequenceIsPulledOnlyAsFastAsTheBodyIsSent() async throws {
        let listener = try SilentListener()
        defer { listener.stop() }
        let bytes = GeneratedBytes(chunkSize: 64 << 10, chunks: nil)
        // A timeout past anything the wait below can take, a sanitizer's load included (under
        // ThreadSanitizer, beside the whole suite, it has taken 35–43 s): only the cancel may end
        // the request.
        let request = Request(
            method: .post, url: URL(string: "http://127.0.0.1:\(listener.port)/sink")!, body: .stream(bytes),
            timeout: .seconds(180))
        let future = sharedConnect.send(request)
        // Let the socket buffers fill, then see that the production stays put.
        var settled = 0
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(50))
            let before = bytes.produced.bytes.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(150))
            if before > 0, bytes.produced.bytes.load(ordering: .relaxed) == before {
                settled = before
                break
            }
        }
        #expect(settled > 0)
        // Loopback socket buffers take a few MiB at most; an unbounded pump would be far past.
        #expect(settled < 48 << 20)
        #expect(bytes.produced.iterating.load(ordering: .relaxed) == 1)
        future.cancel()
        #expect(await connectError(future) == .cancelled)
        // The pass over the sequence stops and its iterator is let go of.
        for _ in 0..<100 where bytes.produced.iterating.load(ordering: .relaxed) > 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let stillIterating = bytes.produced.iterating.load(ordering: .relaxed)
        #expect(stillIterating == 0)
    }
}

/// A listening socket on 127.0.0.1 that never accepts: connections complete in the kernel's
/// backlog and what they send fills the socket buffers, unread.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func stop() {
        close(descriptor)
    }
}
