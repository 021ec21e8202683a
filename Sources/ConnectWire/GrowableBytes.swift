#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes as they are produced (a response body as it arrives, a JSON body as it is written): one
/// malloc'd block grown with `realloc`, then copied into a `Data` or handed to one without a
/// copy.
///
/// `Data.append` and `[UInt8].append` go through storage checks on every call; this is a
/// capacity check and a `memcpy`. Used by one thread at a time. The appends are inlinable: the
/// JSON writers (another module) append byte by byte.
package struct GrowableBytes: ~Copyable {
    // Internal rather than private, and the counts' setters too, for the inlinable appends below.
    @usableFromInline var bytes: UnsafeMutableRawPointer?
    @usableFromInline package internal(set) var count = 0
    @usableFromInline package internal(set) var capacity = 0

    package init() {}

    deinit {
        free(bytes)
    }

    @inlinable
    package var isEmpty: Bool { count == 0 }

    /// Makes room for `total` bytes in all, e.g. a Content-Length.
    package mutating func reserveCapacity(_ total: Int) {
        guard total > capacity else { return }
        guard let grown = realloc(bytes, total) else { return }
        bytes = grown
        capacity = total
    }

    /// Appends `chunk`; `false` if memory ran out (nothing is appended then).
    @inlinable
    package mutating func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let source = chunk.baseAddress, !chunk.isEmpty else { return true }
        guard count + chunk.count <= capacity || makeRoom(for: chunk.count) else { return false }
        (bytes! + count).copyMemory(from: source, byteCount: chunk.count)
        count += chunk.count
        return true
    }

    /// Appends one byte; `false` if memory ran out.
    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) -> Bool {
        guard count < capacity || makeRoom(for: 1) else { return false }
        bytes.unsafelyUnwrapped.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        return true
    }

    /// Room for `extra` more bytes after the last, for the caller to write and then
    /// ``didAppend(_:)``; `nil` if memory ran out.
    @inlinable @inline(__always)
    package mutating func roomAtEnd(for extra: Int) -> UnsafeMutablePointer<UInt8>? {
        guard count + extra <= capacity || makeRoom(for: extra), let bytes else { return nil }
        return (bytes + count).assumingMemoryBound(to: UInt8.self)
    }

    /// Counts `written` bytes the caller wrote into ``roomAtEnd(for:)``.
    @inlinable @inline(__always)
    package mutating func didAppend(_ written: Int) {
        count += written
    }

    /// Calls `body` with the bytes, valid only for the call.
    @inlinable
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Whether the bytes at `first` and at `second`, `length` of each, are the same.
    package func bytesMatch(at first: Int, _ second: Int, length: Int) -> Bool {
        guard let bytes, length > 0 else { return true }
        return memcmp(bytes + first, bytes + second, length) == 0
    }

    /// `length` bytes from `start`, read as UTF-8.
    package func string(at start: Int, length: Int) -> String {
        guard let bytes, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes + start, count: length), as: UTF8.self)
    }

    /// Grows the block, at least doubling it, so `extra` more bytes fit; `false` if memory ran out.
    @usableFromInline
    mutating func makeRoom(for extra: Int) -> Bool {
        guard count + extra > capacity else { return true }
        reserveCapacity(max(count + extra, capacity * 2, 4096))
        return count + extra <= capacity
    }

    /// Forgets the bytes; without `keepingCapacity`, frees the block too.
    package mutating func removeAll(keepingCapacity: Bool) {
        count = 0
        guard !keepingCapacity else { return }
        free(bytes)
        bytes = nil
        capacity = 0
    }

    /// A copy of the bytes, in a block of the calling thread's; the buffer keeps its block, empty.
    package mutating func copyDataAndEmpty() -> Data {
        guard let block = bytes, count > 0 else { return Data() }
        defer { count = 0 }
        return Data(bytes: block, count: count)
    }

    /// The bytes as `Data`, which takes over the block; the buffer is empty afterwards. Out of
    /// line: with a callback queue it serves large bodies only, and inlined it would sit between
    /// the lines of the copy every small body takes there.
    @inline(never)
    package mutating func takeData() -> Data {
        guard let block = bytes, count > 0 else { return Data() }
        bytes = nil
        defer {
            count = 0
            capacity = 0
        }
        return Data(bytesNoCopy: block, count: count, deallocator: .free)
    }
}
