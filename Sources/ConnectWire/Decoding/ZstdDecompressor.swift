import CZstd

/// Decodes zstd (RFC 8878) bodies: one frame or several in a row.
package final class ZstdDecompressor: Decompressor {
    private let stream: OpaquePointer

    package init() throws(ContentDecoder.Failure) {
        guard let stream = ZSTD_createDStream() else { throw .corrupt("zstd could not start") }
        self.stream = stream
        guard ZSTD_isError(ZSTD_initDStream(stream)) == 0 else {
            ZSTD_freeDStream(stream)
            throw .corrupt("zstd could not start")
        }
    }

    deinit {
        ZSTD_freeDStream(stream)
    }

    package func decompress(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecoder.Failure) -> DecompressionStep {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let result = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
        guard ZSTD_isError(result) == 0 else { throw .corrupt(String(cString: ZSTD_getErrorName(result))) }
        // 0: a frame is decoded and all of it flushed.
        return DecompressionStep(consumed: inBuffer.pos, produced: outBuffer.pos, streamEnded: result == 0)
    }

    package func startNextStream() throws(ContentDecoder.Failure) {
        // The next frame starts by itself.
    }
}
