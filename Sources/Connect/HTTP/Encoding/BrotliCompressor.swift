import CBrotli
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compresses a body as Brotli (RFC 7932) at quality 5: close to the best ratio for text at a
/// small part of the top quality's time, which suits bodies compressed as they are sent.
final class BrotliCompressor: Compressor {
    private let state: OpaquePointer

    init() throws(CompressorFailure) {
        guard let state = BrotliEncoderCreateInstance(nil, nil, nil) else {
            throw CompressorFailure(description: "brotli could not start")
        }
        BrotliEncoderSetParameter(state, BROTLI_PARAM_QUALITY, 5)
        self.state = state
    }

    deinit {
        BrotliEncoderDestroyInstance(state)
    }

    func compress(_ input: UnsafeRawBufferPointer, finishing: Bool, into output: inout Data) throws(CompressorFailure) {
        var availableIn = input.count
        var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let state = state
        try drain(into: &output) { buffer throws(CompressorFailure) in
            var availableOut = buffer.count
            var nextOut = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let operation = finishing ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS
            guard
                BrotliEncoderCompressStream(state, operation, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    == BROTLI_TRUE
            else { throw CompressorFailure(description: "brotli could not compress") }
            let written = buffer.count - availableOut
            let more =
                finishing
                ? BrotliEncoderIsFinished(state) != BROTLI_TRUE
                : availableIn > 0 || BrotliEncoderHasMoreOutput(state) == BROTLI_TRUE
            return (written, more)
        }
    }
}
