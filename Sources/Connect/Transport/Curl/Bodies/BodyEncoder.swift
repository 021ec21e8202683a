#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compresses one pass of a streamed body (see ``RequestBody/compressed(_:)``) between the
/// sequence and the inlet it pours into: each deposit is compressed and handed on to `next`,
/// and ``finish()`` writes out the end of the stream.
///
/// `@unchecked Sendable`: one pass runs in one task, which alone deposits and finishes, one call
/// after another; the compressor is never touched from two places.
final class BodyEncoder: @unchecked Sendable {
    private let compressor: any Compressor
    /// Where the compressed bytes go: the pump's inlet, or another encoder's (for codings applied
    /// one after another).
    private let next: BodyPump.Inlet
    /// Why compressing failed, if it did: the pass stops, and ``finish()`` throws it.
    private var failure: CompressorFailure?

    init(compression: BodyCompression, next: BodyPump.Inlet) throws(CompressorFailure) {
        compressor = try compression.makeCompressor()
        self.next = next
    }

    /// The inlet the body's sequence pours into for this encoder.
    var inlet: BodyPump.Inlet {
        BodyPump.Inlet(pump: next.pump, pass: next.pass, encoder: self)
    }

    /// Compresses `chunk` and hands on what came out. Returns `false` when the pass should stop:
    /// the transfer wants no more, or compressing failed.
    func deposit(_ chunk: Data) async -> Bool {
        guard failure == nil else { return false }
        let output: Data
        do {
            output = try compressor.compressChunk(chunk, finishing: false)
        } catch {
            failure = error
            return false
        }
        return output.isEmpty ? true : await next.deposit(output)
    }

    /// Writes out the end of the compressed stream, after the sequence's last chunk; throws why
    /// compressing failed, if it did.
    func finish() async throws(CompressorFailure) {
        if let failure { throw failure }
        _ = await next.deposit(try compressor.compressChunk(Data(), finishing: true))
    }
}
