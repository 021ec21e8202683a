import CBrotli

/// Decodes brotli (RFC 7932) bodies.
package final class BrotliDecompressor: Decompressor {
    private let state: OpaquePointer

    package init() throws(ContentDecoder.Failure) {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { throw .corrupt("brotli could not start") }
        self.state = state
    }

    deinit {
        BrotliDecoderDestroyInstance(state)
    }

    package func decompress(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecoder.Failure) -> DecompressionStep {
        var availableIn = input.count
        var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var availableOut = output.count
        var nextOut = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
        guard result != BROTLI_DECODER_RESULT_ERROR else {
            throw .corrupt(String(cString: BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state))))
        }
        return DecompressionStep(
            consumed: input.count - availableIn, produced: output.count - availableOut,
            streamEnded: result == BROTLI_DECODER_RESULT_SUCCESS)
    }

    package func startNextStream() throws(ContentDecoder.Failure) {
        throw .corrupt("bytes after the end of the brotli stream")
    }
}
