import ConnectFutures
import ConnectTestServer
import ConnectWire
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
        case .later:
            Issue.record("a body waited, with no block with the app")
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

    /// A body announced while the app holds a large body starts small and asks again later;
    /// once the app lets go, the next body takes that block, and nothing is counted as growing
    /// in fresh memory meanwhile.
    @Test func aBodyAnnouncedWhileTheAppHoldsOneWaitsForIt() {
        let recycler = BodyBlockRecycler(keepsFor: .seconds(600))
        recycler.handedToApp()
        guard case .later = recycler.room(for: 4 * Self.megabyte, mayWait: true) else {
            Issue.record("a body announced while a block is with the app did not wait")
            return
        }
        let held = Self.block(4 * Self.megabyte)
        recycler.appLetGo(held)
        #expect(recycler.isKeeping)
        guard case .kept(let taken) = recycler.room(for: 4 * Self.megabyte) else {
            Issue.record("the block the app let go was not taken")
            return
        }
        #expect(taken.start == held.start)
        free(taken.start)
        // With nothing with the app, a body does not wait.
        guard case .fresh = recycler.room(for: 4 * Self.megabyte, mayWait: true) else {
            Issue.record("a body waited with nothing to wait for")
            return
        }
        recycler.freshBodyEnded()
    }

    /// Appends `bytes` to `received`'s body as the transfer does (`keepInMemory`).
    static func receive(_ bytes: Data, into received: ResponseBuffers) {
        if received.body.count + bytes.count > received.body.capacity || received.announcedLength != nil {
            received.makeBodyRoom(for: bytes.count)
        }
        let appended = bytes.withUnsafeBytes { received.body.append($0) }
        #expect(appended)
    }

    /// A body that waits for the app's block moves into it, bytes and all, at the first chunk
    /// after it comes back; one that is a quarter in stops waiting and counts as growing in
    /// memory of its own, so that a block let go afterwards is not kept beside it.
    @Test(arguments: [true, false])
    func aWaitingBodyMovesIntoTheBlockOnceItIsBack(comesBackEarly: Bool) {
        let recycler = BodyBlockRecycler(keepsFor: .seconds(600))
        let received = ResponseBuffers(recycler: recycler)
        let total = 4 * Self.megabyte
        let chunk = Data(repeating: 7, count: 64 << 10)
        recycler.handedToApp()
        received.reserveBody(total)
        #expect(received.announcedLength == total)
        let chunksBeforeComingBack = comesBackEarly ? 4 : total / 4 / chunk.count
        for _ in 0..<chunksBeforeComingBack { Self.receive(chunk, into: received) }
        let held = Self.block(total)
        recycler.appLetGo(held)
        Self.receive(chunk, into: received)
        let start = received.body.withUnsafeBytes { $0.baseAddress }
        if comesBackEarly {
            #expect(start == UnsafeRawPointer(held.start))
            #expect(!recycler.isKeeping)
        } else {
            // A quarter in: no longer waiting, and the block came back to a recycler that keeps
            // none beside a body growing in memory of its own.
            #expect(start != UnsafeRawPointer(held.start))
            #expect(received.announcedLength == nil)
            #expect(!recycler.isKeeping)
        }
        #expect(received.body.count == (chunksBeforeComingBack + 1) * chunk.count)
        #expect(received.body.withUnsafeBytes { $0.allSatisfy { $0 == 7 } })
        received.empty()
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

    /// An observer that asks for the next large body before it returns, holding the last one
    /// meanwhile (as a chain of downloads does): the next body still arrives into its memory.
    /// The server sends the second head at once and its body once the observer has let the
    /// first go: the body is announced while the app holds the block, as it is when the
    /// observer returns after the next head came, and moves into the block when it comes back.
    @Test func theNextLargeBodyAskedForFromAnObserverArrivesIntoTheMemoryOfTheLast() async throws {
        let body = pattern(3 * Self.megabyte)
        let gate = TestGate()
        let hits = Hits()
        let server = try TestServer { _ in
            hits.next() == 1 ? TestResponse(body: body) : TestResponse(body: body, behavior: .holdBody(until: gate))
        }
        defer { server.shutdown() }
        let client = Connect()
        let recycler = try #require(client.transport as? CurlTransport).loop.responseBuffers.recycler
        recycler.keepsFor = .seconds(600)
        let opener = Task {
            // Once the second request is in and the first body's block is back.
            while hits.value < 2 || recycler.blocksWithApp > 0 { try await Task.sleep(for: .milliseconds(2)) }
            gate.open()
        }
        defer { opener.cancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/large")!
        let addresses = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(UInt, UInt), any Error>) in
            client.send(Request(url: url)).observe { first in
                guard case .success(let firstResponse) = first, firstResponse.body == body else {
                    return continuation.resume(throwing: ConnectError.invalidRequest("the first body"))
                }
                let firstAddress = firstResponse.body.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
                client.send(Request(url: url)).observe { second in
                    guard case .success(let secondResponse) = second, secondResponse.body == body else {
                        return continuation.resume(throwing: ConnectError.invalidRequest("the second body"))
                    }
                    continuation.resume(
                        returning: (
                            firstAddress, secondResponse.body.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
                        ))
                }
            }
        }
        #expect(addresses.0 == addresses.1)
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
