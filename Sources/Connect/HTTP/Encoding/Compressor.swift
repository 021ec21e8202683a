#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One coding's encoder for a request body, fed the body in pieces: see ``BodyCompression``.
protocol Compressor: AnyObject {
    /// Compresses `input`, appending what comes out so far to `output`; `finishing`: `input`
    /// is the body's last piece (maybe empty), and everything still held is written out, to
    /// the end of the stream.
    func compress(_ input: UnsafeRawBufferPointer, finishing: Bool, into output: inout Data) throws(CompressorFailure)
}

/// Why a compressor stopped: the library's own words (out of memory, as a rule).
struct CompressorFailure: Error, Sendable, Equatable, CustomStringConvertible {
    let description: String
}

extension Compressor {
    /// `data` compressed whole, to the end of the stream.
    func compressWhole(_ data: Data) throws(CompressorFailure) -> Data {
        try compressChunk(data, finishing: true)
    }

    /// `data` compressed, with what came out so far; `finishing`: to the end of the stream.
    func compressChunk(_ data: Data, finishing: Bool) throws(CompressorFailure) -> Data {
        var output = Data()
        var failure: CompressorFailure?
        data.withUnsafeBytes { bytes in
            do throws(CompressorFailure) {
                try compress(bytes, finishing: finishing, into: &output)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return output
    }

    /// Runs `step` with a scratch buffer of 64 KiB until it reports no more output, appending
    /// what each call wrote to `output`. `step` returns the bytes written and whether more
    /// could follow.
    func drain(
        into output: inout Data, _ step: (UnsafeMutableRawBufferPointer) throws(CompressorFailure) -> (Int, Bool)
    ) throws(CompressorFailure) {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { scratch.deallocate() }
        var more = true
        while more {
            let (written, again) = try step(scratch)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<written]))
            more = again
        }
    }
}
