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
/// capacity check and a `memcpy`. Used by one thread at a time.
///
/// Public, and its small members inlinable, only so that the transport and the JSON writers (other
/// modules, which append byte by byte) inline them: this toolchain inlines no `package`
/// function across modules. ConnectWire is in no product, so no app sees it.
public struct GrowableBytes: ~Copyable {
    // Internal rather than private, for the inlinable members below.
    @usableFromInline var bytes: UnsafeMutableRawPointer?
    @usableFromInline var storedCount = 0
    @usableFromInline var storedCapacity = 0

    /// An empty buffer, without a block until the first byte.
    @inlinable
    public init() {}

    /// How many bytes it holds.
    @inlinable
    public var count: Int { storedCount }

    /// How many bytes its block holds before it grows.
    @inlinable
    public var capacity: Int { storedCapacity }

    deinit {
        free(bytes)
    }

    /// Whether it holds no bytes.
    @inlinable
    public var isEmpty: Bool { storedCount == 0 }

    /// Makes room for `total` bytes in all, e.g. a Content-Length.
    public mutating func reserveCapacity(_ total: Int) {
        guard total > storedCapacity else { return }
        guard let grown = realloc(bytes, total) else { return }
        bytes = grown
        storedCapacity = total
    }

    /// Appends `chunk`; `false` if memory ran out (nothing is appended then).
    @inlinable
    public mutating func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let source = chunk.baseAddress, !chunk.isEmpty else { return true }
        guard storedCount + chunk.count <= storedCapacity || makeRoom(for: chunk.count) else { return false }
        (bytes! + storedCount).copyMemory(from: source, byteCount: chunk.count)
        storedCount += chunk.count
        return true
    }

    /// Appends one byte; `false` if memory ran out.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) -> Bool {
        guard storedCount < storedCapacity || makeRoom(for: 1) else { return false }
        bytes.unsafelyUnwrapped.storeBytes(of: byte, toByteOffset: storedCount, as: UInt8.self)
        storedCount += 1
        return true
    }

    /// Room for `extra` more bytes after the last, for the caller to write and then
    /// ``didAppend(_:)``; `nil` if memory ran out.
    @inlinable @inline(__always)
    public mutating func roomAtEnd(for extra: Int) -> UnsafeMutablePointer<UInt8>? {
        guard storedCount + extra <= storedCapacity || makeRoom(for: extra), let bytes else { return nil }
        return (bytes + storedCount).assumingMemoryBound(to: UInt8.self)
    }

    /// Counts `written` bytes the caller wrote into ``roomAtEnd(for:)``.
    @inlinable @inline(__always)
    public mutating func didAppend(_ written: Int) {
        storedCount += written
    }

    /// Calls `body` with the bytes, valid only for the call.
    @inlinable
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: bytes, count: storedCount))
    }

    /// Whether the bytes at `first` and at `second`, `length` of each, are the same.
    @inlinable
    public func bytesMatch(at first: Int, _ second: Int, length: Int) -> Bool {
        guard let bytes, length > 0 else { return true }
        return memcmp(bytes + first, bytes + second, length) == 0
    }

    /// `length` bytes from `start`, read as UTF-8.
    @inlinable
    public func string(at start: Int, length: Int) -> String {
        guard let bytes, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes + start, count: length), as: UTF8.self)
    }

    /// Grows the block, at least doubling it, so `extra` more bytes fit; `false` if memory ran out.
    /// Out of line: the slow path of the inlined appends.
    @usableFromInline
    mutating func makeRoom(for extra: Int) -> Bool {
        guard storedCount + extra > storedCapacity else { return true }
        reserveCapacity(max(storedCount + extra, storedCapacity * 2, 4096))
        return storedCount + extra <= storedCapacity
    }

    /// Takes over `block`, a malloc'd block of `capacity` bytes, in place of its own, resized to
    /// `total` bytes; the bytes held so far move into it. For a block whose pages are already
    /// mapped, that the bytes about to arrive would otherwise fault into fresh memory.
    public mutating func adopt(_ block: UnsafeMutableRawPointer, capacity: Int, resizedTo total: Int) {
        precondition(total >= storedCount, "adopting a block too small for the bytes held")
        guard let resized = capacity == total ? block : realloc(block, total) else {
            free(block)
            reserveCapacity(total)
            return
        }
        if let bytes {
            resized.copyMemory(from: bytes, byteCount: storedCount)
            free(bytes)
        }
        bytes = resized
        storedCapacity = total
    }

    /// Cuts the block to the bytes it holds (a block of one byte when empty).
    public mutating func shrinkToFit() {
        guard let block = bytes, storedCapacity > max(storedCount, 1), let cut = realloc(block, max(storedCount, 1))
        else { return }
        bytes = cut
        storedCapacity = max(storedCount, 1)
    }

    /// Hands over the block with the bytes, for the caller to free; the buffer is empty afterwards,
    /// without a block. `nil` if it has none.
    public mutating func takeBlock() -> (start: UnsafeMutableRawPointer, count: Int, capacity: Int)? {
        guard let block = bytes else { return nil }
        defer {
            bytes = nil
            storedCount = 0
            storedCapacity = 0
        }
        return (block, storedCount, storedCapacity)
    }

    /// Forgets the bytes; without `keepingCapacity`, frees the block too.
    public mutating func removeAll(keepingCapacity: Bool) {
        storedCount = 0
        guard !keepingCapacity else { return }
        free(bytes)
        bytes = nil
        storedCapacity = 0
    }

    /// A copy of the bytes, in a block of the calling thread's; the buffer keeps its block, empty.
    public mutating func copyDataAndEmpty() -> Data {
        guard let block = bytes, storedCount > 0 else { return Data() }
        defer { storedCount = 0 }
        return Data(bytes: block, count: storedCount)
    }

    /// The bytes as `Data`, which takes over the block; the buffer is empty afterwards. Out of
    /// line: with a callback queue it serves large bodies only, and inlined it would sit between
    /// the lines of the copy every small body takes there.
    @inline(never)
    public mutating func takeData() -> Data {
        guard let block = bytes, storedCount > 0 else { return Data() }
        bytes = nil
        defer {
            storedCount = 0
            storedCapacity = 0
        }
        return Data(bytesNoCopy: block, count: storedCount, deallocator: .free)
    }
}
