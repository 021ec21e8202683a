import CZstd
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compresses a body as Zstandard (RFC 8878), one frame, at zstd's default level.
final class ZstdCompressor: Compressor {
    private let stream: OpaquePointer

    init() throws(CompressorFailure) {
        guard let stream = ZSTD_createCStream() else { throw CompressorFailure(description: "zstd could not start") }
        self.stream = stream
    }

    deinit {
        ZSTD_freeCStream(stream)
    }

    func compress(_ input: UnsafeRawBufferPointer, finishing: Bool, into output: inout Data) throws(CompressorFailure) {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        let stream = stream
        try drain(into: &output) { buffer throws(CompressorFailure) in
            var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
            let remaining = ZSTD_compressStream2(
                stream, &outBuffer, &inBuffer, finishing ? ZSTD_e_end : ZSTD_e_continue)
            guard ZSTD_isError(remaining) == 0 else {
                throw CompressorFailure(description: String(cString: ZSTD_getErrorName(remaining)))
            }
            // Finishing, `remaining` is what is left to flush; otherwise more while input is left.
            let more = finishing ? remaining != 0 : inBuffer.pos < inBuffer.size
            return (outBuffer.pos, more)
        }
    }
}
