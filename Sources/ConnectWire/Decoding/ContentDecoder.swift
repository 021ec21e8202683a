#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a compressed body (`gzip`, `deflate`, `br`, `zstd`) as it arrives, and tells whether
/// its stream ended properly: a body cut off inside its compressed stream is truncated, whatever
/// its `Content-Length` said.
///
/// Connect decodes bodies itself rather than through libcurl, whose decoders hand on whatever a
/// cut-off stream decoded to and report success.
package final class ContentDecoder {
    /// The codings Connect decodes, as named in `Content-Encoding`.
    package enum Coding: Equatable, CaseIterable {
        case gzip
        case deflate
        case brotli
        case zstd

        /// The coding a `Content-Encoding` value names, or `nil` for none Connect decodes
        /// (`identity`, or a coding it does not know, whose body is handed on as it came).
        package init?(headerValue: some StringProtocol) {
            switch headerValue.trimmingHTTPSpaces.lowercased() {
            case "gzip", "x-gzip": self = .gzip
            case "deflate": self = .deflate
            case "br": self = .brotli
            case "zstd": self = .zstd
            default: return nil
            }
        }

        /// `Accept-Encoding` for every coding Connect decodes.
        package static let acceptEncoding = "gzip, deflate, br, zstd"
    }

    /// Why a body could not be decoded.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The bytes are not a stream of the coding the response named.
        case corrupt(String)
        /// The stream stopped before its end.
        case truncated

        package var description: String {
            switch self {
            case .corrupt(let detail): return "the compressed body is corrupt (\(detail))"
            case .truncated: return "the compressed body ends before its stream does"
            }
        }
    }

    package let coding: Coding
    private let decompressor: any Decompressor
    private let output: UnsafeMutableRawBufferPointer
    /// Input has been read since the last stream ended (or since the start).
    private var isInsideStream = false
    /// A stream has ended, so more input starts another (where the coding allows it).
    private var streamEnded = false
    /// Any input has come at all.
    package private(set) var hasInput = false

    package static let outputChunk = 16 << 10

    package init(coding: Coding) throws(Failure) {
        self.coding = coding
        switch coding {
        case .gzip: decompressor = try ZlibDecompressor(format: .gzip)
        case .deflate: decompressor = try ZlibDecompressor(format: .deflate)
        case .brotli: decompressor = try BrotliDecompressor()
        case .zstd: decompressor = try ZstdDecompressor()
        }
        output = .allocate(byteCount: Self.outputChunk, alignment: 1)
    }

    deinit {
        output.deallocate()
    }

    /// Whether the body so far is whole: every stream that started has ended.
    package var isComplete: Bool { !isInsideStream }

    /// Decodes `input`, handing each piece of output to `deliver`, which returns `false` to stop
    /// (the rest of the input is then left undecoded).
    ///
    /// - Returns: whether every piece was delivered.
    package func decode(
        _ input: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool
    ) throws(Failure) -> Bool {
        guard !input.isEmpty else { return true }
        hasInput = true
        var remaining = input
        while true {
            if streamEnded {
                guard !remaining.isEmpty else { return true }
                try decompressor.startNextStream()
                streamEnded = false
            }
            let step = try decompressor.decompress(remaining, into: output)
            remaining = UnsafeRawBufferPointer(rebasing: remaining[step.consumed...])
            if step.consumed > 0 || step.produced > 0 { isInsideStream = true }
            if step.streamEnded {
                isInsideStream = false
                streamEnded = true
            }
            if step.produced > 0,
                !deliver(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[..<step.produced]))
            {
                return false
            }
            // A full output buffer may leave more output inside the decompressor: ask again.
            if step.produced == output.count || step.streamEnded { continue }
            if remaining.isEmpty || step.consumed == 0 { return true }
        }
    }
}
