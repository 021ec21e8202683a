/// A content coding that compresses a request body, sent as its `Content-Encoding`: see
/// ``RequestBody/compressed(_:)``.
///
/// The server must accept the coding; many do not, so request bodies go out as they are unless
/// asked. gzip and deflate are the ones most servers decode; br and zstd compress text better.
public enum BodyCompression: String, Sendable, Hashable, CaseIterable {
    /// gzip (RFC 1952), with zlib.
    case gzip
    /// deflate, as RFC 9110 defines it: a zlib stream (RFC 1950), with zlib.
    case deflate
    /// Brotli (RFC 7932).
    case brotli = "br"
    /// Zstandard (RFC 8878).
    case zstd

    /// The coding's name in `Content-Encoding`: `gzip`, `deflate`, `br` or `zstd`.
    public var name: String { rawValue }

    /// A new compressor for one body in this coding.
    func makeCompressor() throws(CompressorFailure) -> any Compressor {
        switch self {
        case .gzip: try ZlibCompressor(gzip: true)
        case .deflate: try ZlibCompressor(gzip: false)
        case .brotli: try BrotliCompressor()
        case .zstd: try ZstdCompressor()
        }
    }
}
