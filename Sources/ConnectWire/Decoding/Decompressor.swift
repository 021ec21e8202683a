/// One compression format's decoder, driven by ``ContentDecoder``.
package protocol Decompressor: AnyObject {
    /// Decodes what it can of `input` into `output`.
    func decompress(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(ContentDecoder.Failure) -> DecompressionStep

    /// Gets ready for another stream after one ended (gzip members and zstd frames may follow
    /// one another); throws for formats whose body is a single stream.
    func startNextStream() throws(ContentDecoder.Failure)
}
