/// Runs `body` with a copy of `bytes` in memory of its own, for the parsers that read raw bytes.
func withCopiedBytes<Result>(_ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: bytes)
    return body(UnsafeRawBufferPointer(buffer))
}
