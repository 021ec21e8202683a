internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One response as it arrives on the transfer thread: the header lines, the body and, once the
/// transfer ends, the rest of what the `Response` needs. Recycled through a
/// ``ResponseBuffersPool``.
///
/// The transfer thread fills it; the callback queue copies it into the `Response` and gives it
/// back. That way the blocks the caller ends up holding are allocated on the callback queue, and
/// the buffers the transfer thread allocates stay with it (except a body over
/// ``largestCopiedBody``, handed over as it is). Were the transfer thread to allocate every
/// response's blocks and the callback queue to free them, both threads would take the same
/// malloc arena's lock for every response.
///
/// `@unchecked Sendable`: owned by one thread at a time, handed over under a lock (the transfer
/// loop's completion hand-off, the pool's).
final class ResponseBuffers: @unchecked Sendable {
    /// Bodies up to this size are copied out and their block kept for the next response; a larger
    /// block is handed to the `Data` as it is, which saves the copy where it would cost most.
    static let largestCopiedBody = 64 << 10
    /// A header block that grew past this is not kept.
    static let largestKeptHeaders = 16 << 10

    // `@exclusivity(unchecked)`: one thread at a time (see above); these are touched for every
    // header line and body chunk.
    @exclusivity(unchecked) var headers = ReceivedHeaderLines()
    @exclusivity(unchecked) var body = GrowableBytes()
    // Set by the transfer thread when the transfer ends.
    var statusCode = 0
    var httpVersion = "1.1"
    var metrics = TransferMetrics()
    var fileURL: URL?
    var resumed = false
    /// The reason phrase of the final status line, when it is not the standard one.
    var reasonPhrase: String?
    /// Where a large body's block goes when the app lets go of its `Data`, and where the next
    /// large body's comes from.
    let recycler: BodyBlockRecycler
    /// Whether the body grows in memory of its own, counted by the recycler (see
    /// ``BodyBlockRecycler/room(for:mayWait:)``) until it is handed over or dropped.
    private var growsInFreshMemory = false
    /// The length the head announced for a large body that waits, in a block of its own, for
    /// one the app is about to let go (``BodyBlockRecycler/Room/later``); every chunk looks for
    /// it meanwhile.
    private(set) var announcedLength: Int?

    init(recycler: BodyBlockRecycler) {
        self.recycler = recycler
    }

    deinit {
        if growsInFreshMemory { recycler.freshBodyEnded() }
    }

    /// Room for a body of `total` bytes, its announced length: a kept block cut to size when one
    /// fits (see ``BodyBlockRecycler``), else a block of its own.
    func reserveBody(_ total: Int) {
        guard body.isEmpty else { return }
        guard total >= BodyBlockRecycler.smallestKept else { return body.reserveCapacity(total) }
        growBody(into: total, resizingKept: true, mayWait: true)
    }

    /// Room for `extra` more body bytes, for a body that outgrew its block (one of unknown
    /// length) or waits for a block the app holds: as the body's own growth would make it, or
    /// the kept block once the body is large. Out of line: a body of known length that did not
    /// wait never comes here.
    @inline(never)
    func makeBodyRoom(for extra: Int) {
        if let announcedLength {
            let total = max(announcedLength, body.count + extra)
            // Waiting: a block the app let go is taken as soon as it is back, the bytes so far
            // copied into it and the body's own block freed (only its first pages touched).
            if let block = recycler.take(fitting: total) {
                self.announcedLength = nil
                return body.adopt(block.start, capacity: block.capacity, resizedTo: total)
            }
            // Until a quarter of the body is in: after that, a block that comes back would cost
            // more to copy into than the rest of the body costs to fault in.
            guard body.count + extra >= announcedLength / 4 else { return }
            self.announcedLength = nil
            growBody(into: total, resizingKept: true, mayWait: false)
            return
        }
        let wanted = max(body.count + extra, body.capacity * 2, 4096)
        guard body.capacity < BodyBlockRecycler.smallestKept, wanted >= BodyBlockRecycler.smallestKept else { return }
        growBody(into: wanted, resizingKept: false, mayWait: false)
    }

    /// Moves the body into `total` bytes, the first time it is large: the kept block if it fits
    /// (cut to `total` when `resizingKept`, the length being known), else a block of its own,
    /// which with `mayWait` waits, uncounted, for a block the app holds to come back.
    private func growBody(into total: Int, resizingKept: Bool, mayWait: Bool) {
        switch recycler.room(for: total, mayWait: mayWait) {
        case .kept(let block):
            announcedLength = nil
            body.adopt(block.start, capacity: block.capacity, resizedTo: resizingKept ? total : block.capacity)
        case .fresh:
            announcedLength = nil
            growsInFreshMemory = true
            body.reserveCapacity(total)
        case .later:
            // In a block of its own meanwhile, not counted as growing there: the block the app
            // holds stands in for it until it comes back.
            announcedLength = total
            body.reserveCapacity(total)
        }
    }

    /// The response, in blocks allocated by the calling thread; this is left empty, for its pool.
    ///
    /// `onFillingThread`: the thread that filled this makes the response too (there is no
    /// callback queue), so no block crosses threads and the body's block is handed to the `Data`
    /// as it is, whatever its size: copying a small body would only read it back from memory the
    /// transfers since have pushed it out to. `url` is taken, not borrowed: the response keeps it.
    func makeResponse(url: consuming URL, onFillingThread: Bool) -> Response {
        let copiedHeaders = headers.copy()
        let data =
            body.capacity <= Self.largestCopiedBody && !onFillingThread ? body.copyDataAndEmpty() : takeBody()
        let response = Response(
            statusCode: statusCode, rawHeaders: copiedHeaders, body: data, url: url,
            httpVersion: httpVersion, metrics: metrics, fileURL: fileURL, resumed: resumed,
            reasonPhrase: reasonPhrase)
        empty()
        return response
    }

    /// The body as `Data` that takes over its block; a large block goes to the recycler when the
    /// `Data` is let go, cut first to the body's size if the body filled less than half of it.
    /// Out of line: with a callback queue it serves large bodies only, and inlined it would sit
    /// between the lines of the copy every small body takes.
    @inline(never)
    private func takeBody() -> Data {
        endFreshGrowth()
        announcedLength = nil
        guard body.capacity >= BodyBlockRecycler.smallestKept else { return body.takeData() }
        if body.capacity / 2 > body.count { body.shrinkToFit() }
        guard let (start, count, capacity) = body.takeBlock() else { return Data() }
        let recycler = recycler
        recycler.handedToApp()
        return Data(
            bytesNoCopy: start, count: count,
            deallocator: .custom { start, _ in
                recycler.appLetGo(BodyBlockRecycler.Block(start: start, capacity: capacity))
            })
    }

    /// The body no longer grows, for the recycler's count.
    private func endFreshGrowth() {
        guard growsInFreshMemory else { return }
        growsInFreshMemory = false
        recycler.freshBodyEnded()
    }

    /// Ready for another response.
    func empty() {
        headers.removeAll(keepingCapacity: headers.capacity <= Self.largestKeptHeaders)
        endFreshGrowth()
        announcedLength = nil
        if body.capacity >= BodyBlockRecycler.smallestKept, let (start, _, capacity) = body.takeBlock() {
            // A body that did not become a response (a failure, a retried attempt): its block is
            // as good for the next one.
            recycler.keep(BodyBlockRecycler.Block(start: start, capacity: capacity))
        }
        body.removeAll(keepingCapacity: body.capacity <= Self.largestCopiedBody)
        fileURL = nil
        resumed = false
        reasonPhrase = nil
    }
}
