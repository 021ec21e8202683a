/// What one call of ``Decompressor/decompress(_:into:)`` did.
struct DecompressionStep: Equatable {
    /// Input bytes read.
    var consumed: Int
    /// Output bytes written.
    var produced: Int
    /// The stream (member, frame) ended with this step, its checks passed.
    var streamEnded: Bool
}
