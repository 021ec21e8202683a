import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A large body's memory, let go by the app, serves the next large body (`BodyBlockRecycler`):
/// which blocks are kept, which body takes one, and how long one waits.
@Suite("Large bodies' memory reused", .timeLimit(.minutes(2)))
struct BodyBlockRecyclerTests {
    static let megabyte = 1 << 20

    static func block(_ capacity: Int) -> BodyBlockRecycler.Block {
        BodyBlockRecycler.Block(start: malloc(capacity)!, capacity: capacity)
    }

    struct RoomCase: Sendable, CustomStringConvertible {
        /// Capacities kept, in order.
        let kept: [Int]
        /// The body's size.
        let total: Int
        /// The capacity of the block it takes; `nil` for fresh memory.
        let taken: Int?
        let description: String
    }

    static let roomCases: [RoomCase] = [
        RoomCase(kept: [], total: 2 * megabyte, taken: nil, description: "nothing kept"),
        RoomCase(kept: [4 * megabyte], total: 4 * megabyte, taken: 4 * megabyte, description: "the same size"),
        RoomCase(
            kept: [4 * megabyte], total: 2 * megabyte, taken: 4 * megabyte,
            description: "a smaller body takes it (and cuts it to size)"),
        RoomCase(
            kept: [2 * megabyte], total: 4 * megabyte, taken: nil,
            description: "a larger body grows in fresh memory, and the block is freed, not kept beside it"),
        RoomCase(kept: [megabyte / 2], total: megabyte, taken: nil, description: "a small block is freed, not kept"),
        RoomCase(
            kept: [2 * megabyte, 8 * megabyte], total: 8 * megabyte, taken: 8 * megabyte,
            description: "of two, the larger is kept"),
        RoomCase(
            kept: [8 * megabyte, 2 * megabyte], total: 8 * megabyte, taken: 8 * megabyte,
            description: "of two, the larger is kept, whichever came first")
    ]

    @Test(arguments: roomCases)
    func aBodyTakesAKeptBlockThatFits(_ testCase: RoomCase) {
        let recycler = BodyBlockRecycler(keepsFor: .seconds(600))
        for capacity in testCase.kept { recycler.keep(Self.block(capacity)) }
        switch recycler.room(for: testCase.total) {
        case .kept(let block):
            #expect(block.capacity == testCase.taken)
            free(block.start)
        case .fresh:
            #expect(testCase.taken == nil)
            recycler.freshBodyEnded()
        }
        // Either way, nothing is kept beside the body.
        #expect(!recycler.isKeeping)
    }

    /// A block given back while a large body grows in memory of its own would add its size to
    /// that body's: it is freed, and blocks are kept again once the body is complete.
    @Test func nothingIsKeptWhileALargeBodyGrowsInFreshMemory() {
        let recycler = BodyBlockRecycler(keepsFor: .seconds(600))
        guard case .fresh = recycler.room(for: 4 * Self.megabyte) else {
            Issue.record("nothing was kept, yet a block was taken")
            return
        }
        recycler.keep(Self.block(4 * Self.megabyte))
        #expect(!recycler.isKeeping)
        recycler.freshBodyEnded()
        recycler.keep(Self.block(4 * Self.megabyte))
        #expect(recycler.isKeeping)
        recycler.freeKept()
    }

    @Test func aKeptBlockIsFreedWhenNoBodyTakesItInTime() async {
        let recycler = BodyBlockRecycler(keepsFor: .milliseconds(20))
        recycler.keep(Self.block(2 * Self.megabyte))
        #expect(recycler.isKeeping)
        #expect(await eventually { !recycler.isKeeping })
        // A block kept after the first expiry gets its own.
        recycler.keep(Self.block(2 * Self.megabyte))
        #expect(await eventually { !recycler.isKeeping })
    }

    @Test func closingTheClientFreesTheKeptBlock() {
        let recycler = BodyBlockRecycler(keepsFor: .seconds(600))
        recycler.keep(Self.block(2 * Self.megabyte))
        recycler.freeKept()
        #expect(!recycler.isKeeping)
    }

    /// Where a body's bytes live, and whether they are the ones sent.
    static func fetch(_ client: Connect, _ url: URL, expecting body: Data) async throws -> UInt {
        let received = try await client.send(Request(url: url)).value.body
        #expect(received == body)
        return received.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    /// `body` in 64 KiB chunks, as a server that does not know its length sends it.
    static func chunked(_ body: Data) -> Data {
        var message = Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var offset = 0
        while offset < body.count {
            let end = min(offset + 65_536, body.count)
            message.append(contentsOf: String(end - offset, radix: 16).utf8)
            message.append(contentsOf: "\r\n".utf8)
            message.append(body[offset..<end])
            message.append(contentsOf: "\r\n".utf8)
            offset = end
        }
        message.append(contentsOf: "0\r\n\r\n".utf8)
        return message
    }

    /// Two large bodies one after the other, the first let go before the second is asked for:
    /// the second arrives into the first one's memory, and its bytes are its own; with a
    /// `Content-Length` and without one, with a callback queue and without one.
    @Test(arguments: [false, true], [false, true])
    func theNextLargeBodyArrivesIntoTheMemoryOfTheLast(onTransferThread: Bool, chunked: Bool) async throws {
        let first = pattern(3 * Self.megabyte)
        let second = Data(first.reversed())
        let serving = Locked(0)
        let body = { @Sendable in
            serving.withLock { count in
                defer { count += 1 }
                return count % 2 == 0 ? first : second
            }
        }
        let url: URL
        let shutdown: () -> Void
        if chunked {
            let server = try RawServer { _, _ in [.send(Self.chunked(body()))] }
            (url, shutdown) = (URL(string: "http://127.0.0.1:\(server.port)/large")!, server.shutdown)
        } else {
            let server = try TestServer { _ in TestResponse(body: body()) }
            (url, shutdown) = (URL(string: "http://127.0.0.1:\(server.port)/large")!, server.shutdown)
        }
        defer { shutdown() }
        var configuration = ConnectConfiguration()
        configuration.runsCallbacksOnTransferThread = onTransferThread
        let client = Connect(configuration: configuration)
        // A block is kept for a second, which a loaded machine can outlast between two requests.
        try #require(client.transport as? CurlTransport).loop.responseBuffers.recycler.keepsFor = .seconds(600)
        let firstAddress = try await Self.fetch(client, url, expecting: first)
        let secondAddress = try await Self.fetch(client, url, expecting: second)
        #expect(firstAddress == secondAddress)
    }
}
