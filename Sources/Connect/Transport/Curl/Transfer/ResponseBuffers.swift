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

    /// The response, in blocks allocated by the calling thread; this is left empty, for its pool.
    ///
    /// `onFillingThread`: the thread that filled this makes the response too (there is no
    /// callback queue), so no block crosses threads and the body's block is handed to the `Data`
    /// as it is, whatever its size: copying a small body would only read it back from memory the
    /// transfers since have pushed it out to.
    func makeResponse(url: URL, onFillingThread: Bool) -> Response {
        let copiedHeaders = headers.copy()
        let data =
            body.capacity <= Self.largestCopiedBody && !onFillingThread ? body.copyDataAndEmpty() : body.takeData()
        let response = Response(
            statusCode: statusCode, rawHeaders: copiedHeaders, body: data, url: url,
            httpVersion: httpVersion, metrics: metrics, fileURL: fileURL, resumed: resumed,
            reasonPhrase: reasonPhrase)
        empty()
        return response
    }

    /// Ready for another response.
    func empty() {
        headers.removeAll(keepingCapacity: headers.capacity <= Self.largestKeptHeaders)
        body.removeAll(keepingCapacity: body.capacity <= Self.largestCopiedBody)
        fileURL = nil
        resumed = false
        reasonPhrase = nil
    }
}
