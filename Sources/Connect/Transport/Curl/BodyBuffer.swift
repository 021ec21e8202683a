import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A response body as it arrives: one malloc'd block grown with `realloc`, then copied into a
/// `Data` or handed to one without a copy (see ``ReceivedResponse``).
///
/// `Data.append` goes through Foundation's storage checks on every chunk; this is a `memcpy`.
/// Used by one thread at a time.
struct BodyBuffer: ~Copyable {
    private var bytes: UnsafeMutableRawPointer?
    private(set) var count = 0
    private(set) var capacity = 0

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

    /// Forgets the bytes; without `keepingCapacity`, frees the block too.
    mutating func removeAll(keepingCapacity: Bool) {
        count = 0
        guard !keepingCapacity else { return }
        free(bytes)
        bytes = nil
        capacity = 0
    }

    /// A copy of the bytes, in a block of the calling thread's; the buffer keeps its block, empty.
    mutating func copyDataAndEmpty() -> Data {
        guard let block = bytes, count > 0 else { return Data() }
        defer { count = 0 }
        return Data(bytes: block, count: count)
    }

    /// The bytes as `Data`, which takes over the block; the buffer is empty afterwards.
    mutating func takeData() -> Data {
        guard let block = bytes, count > 0 else { return Data() }
        bytes = nil
        defer { count = 0; capacity = 0 }
        return Data(bytesNoCopy: block, count: count, deallocator: .free)
    }
}
