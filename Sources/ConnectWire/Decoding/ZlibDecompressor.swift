import CZlib

/// Inflates gzip (RFC 1952) and deflate bodies with zlib.
package final class ZlibDecompressor: Decompressor {
    package enum Format {
        case gzip
        /// A zlib stream (RFC 1950) as RFC 9110 says, or the raw deflate (RFC 1951) some
        /// servers send: told apart by the first bytes.
        case deflate
    }

    private let format: Format
    private let stream: UnsafeMutablePointer<z_stream>
    /// Set once a deflate body turned out not to be a zlib stream.
    private var isRawDeflate = false
    private var hasOutput = false

    package init(format: Format) throws(ContentDecoder.Failure) {
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 16 + 15: a gzip wrapper with the largest window; 15: a zlib wrapper.
        guard czlib_inflate_init(stream, format == .gzip ? 16 + MAX_WBITS : MAX_WBITS) == Z_OK else {
            stream.deallocate()
            throw .corrupt("zlib could not start")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    package func decompress(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecoder.Failure) -> DecompressionStep {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = inflate(stream, Z_NO_FLUSH)
        let step = DecompressionStep(
            consumed: input.count - Int(stream.pointee.avail_in),
            produced: output.count - Int(stream.pointee.avail_out),
            streamEnded: status == Z_STREAM_END
        )
        switch status {
        case Z_OK, Z_BUF_ERROR, Z_STREAM_END:
            if step.produced > 0 { hasOutput = true }
            return step
        case Z_DATA_ERROR where format == .deflate && !isRawDeflate && !hasOutput:
            // Not a zlib stream: start over on the same input as raw deflate.
            isRawDeflate = true
            inflateEnd(stream)
            stream.pointee = z_stream()
            guard czlib_inflate_init(stream, -MAX_WBITS) == Z_OK else { throw .corrupt("zlib could not start") }
            return try decompress(input, into: output)
        default:
            throw .corrupt(stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)")
        }
    }

    package func startNextStream() throws(ContentDecoder.Failure) {
        // A gzip body may hold several members, one after another; a deflate body is one stream.
        guard format == .gzip else { throw .corrupt("bytes after the end of the deflate stream") }
        inflateReset(stream)
    }
}
