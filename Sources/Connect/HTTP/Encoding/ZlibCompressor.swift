import CZlib
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compresses a body as gzip (RFC 1952) or deflate (a zlib stream, RFC 1950) with zlib, at its
/// default level.
final class ZlibCompressor: Compressor {
    private let stream: UnsafeMutablePointer<z_stream>

    /// `gzip`: a gzip wrapper; otherwise a zlib one.
    init(gzip: Bool) throws(CompressorFailure) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 16 + 15: a gzip wrapper with the largest window; 15: a zlib wrapper.
        guard czlib_deflate_init(stream, Z_DEFAULT_COMPRESSION, gzip ? 16 + MAX_WBITS : MAX_WBITS) == Z_OK else {
            stream.deallocate()
            throw CompressorFailure(description: "zlib could not start")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    func compress(_ input: UnsafeRawBufferPointer, finishing: Bool, into output: inout Data) throws(CompressorFailure) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        let stream = stream
        try drain(into: &output) { buffer throws(CompressorFailure) in
            stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(buffer.count)
            let status = deflate(stream, finishing ? Z_FINISH : Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw CompressorFailure(
                    description: stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)")
            }
            let written = buffer.count - Int(stream.pointee.avail_out)
            // More while the input is not all taken, or (finishing) until the stream's end.
            let more = finishing ? status != Z_STREAM_END : stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
            return (written, more)
        }
    }
}
