// Helpers the test targets of several modules share: a target of the package's own, in no
// product, so that no app builds it.

import Foundation

/// A small deterministic generator (SplitMix64), so that a randomized test names a seed that
/// reproduces a failure.
public struct SeededGenerator: RandomNumberGenerator {
    /// The state; the seed at first.
    public var state: UInt64

    /// A generator that starts from `state`.
    public init(state: UInt64) {
        self.state = state
    }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body` with a copy of `bytes` in memory of its own, for the parsers that read raw bytes.
public func withCopiedBytes<Result>(
    _ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result
) -> Result {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: bytes)
    return body(UnsafeRawBufferPointer(buffer))
}

/// Bytes that are the same JSON document however its objects' keys are ordered: `data` parsed
/// and written again with sorted keys.
public func canonicalJSON(_ data: Data) throws -> Data {
    try JSONSerialization.data(
        withJSONObject: JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed),
        options: [.sortedKeys, .fragmentsAllowed])
}
