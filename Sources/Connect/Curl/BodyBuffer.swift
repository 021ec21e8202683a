import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A response body as it arrives: one malloc'd block grown with `realloc`, handed to `Data`
/// without a copy when the transfer ends.
///
/// `Data.append` goes through Foundation's storage checks on every chunk; this is a `memcpy`.
/// Used by the transfer thread only.
struct BodyBuffer: ~Copyable {
    private var bytes: UnsafeMutableRawPointer?
    private(set) var count = 0
    private var capacity = 0

    init() {}

    deinit {
        free(bytes)
    }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `total` bytes in all, e.g. a Content-Length.
    mutating func reserveCapacity(_ total: Int) {
        guard total > capacity else { return }
        guard let grown = realloc(bytes, total) else { return }
        bytes = grown
        capacity = total
    }

    /// Appends `chunk`; `false` if memory ran out (nothing is appended then).
    mutating func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let source = chunk.baseAddress, !chunk.isEmpty else { return true }
        if count + chunk.count > capacity {
            reserveCapacity(max(count + chunk.count, capacity * 2, 4096))
            guard count + chunk.count <= capacity else { return false }
        }
        (bytes! + count).copyMemory(from: source, byteCount: chunk.count)
        count += chunk.count
        return true
    }

    /// The bytes as `Data`, which takes over the block; the buffer is empty afterwards.
    mutating func takeData() -> Data {
        guard let block = bytes, count > 0 else { return Data() }
        bytes = nil
        defer { count = 0; capacity = 0 }
        return Data(bytesNoCopy: block, count: count, deallocator: .free)
    }
}
