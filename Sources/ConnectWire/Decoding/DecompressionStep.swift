/// What one call of ``Decompressor/decompress(_:into:)`` did.
package struct DecompressionStep: Equatable {
    /// Input bytes read.
    package var consumed: Int
    /// Output bytes written.
    package var produced: Int
    /// The stream (member, frame) ended with this step, its checks passed.
    package var streamEnded: Bool
}
