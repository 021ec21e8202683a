import CCurl
import Testing

#if canImport(Glibc)
import Glibc

/// The allocation functions the C shim gives libcurl on glibc (`ccurl_global_init`): a small
/// zeroed or resized block comes from malloc, memcpy and free, which serve it from the calling
/// thread's cache, instead of calloc and realloc, which take an arena's lock in a process with
/// threads. Each must keep calloc's and realloc's contract, whichever path serves the size.
@Suite("libcurl's allocations")
struct LibcurlAllocationTests {
    @Test(arguments: [(1, 0), (1, 1), (3, 8), (1, 1024), (4, 256), (1, 1025), (4, 1024), (1, 200_000)])
    func aZeroedBlockIsZeroedWhateverItsSize(count: Int, size: Int) throws {
        let total = count * size
        // The same size written over and freed first: the next block is likely that memory.
        if let used = malloc(max(total, 1)) {
            memset(used, 0xAB, max(total, 1))
            free(used)
        }
        let block = try #require(ccurl_zeroed_allocation(count, size))
        defer { free(block) }
        #expect(malloc_usable_size(block) >= total)
        #expect(UnsafeRawBufferPointer(start: block, count: total).allSatisfy { $0 == 0 })
    }

    /// A count times a size past `size_t`'s range is refused before any allocator sees it (a
    /// product within the range but too large to serve is calloc's to refuse, and a sanitizer's
    /// calloc stops the process there instead of returning null, so no test asks for one).
    @Test func aZeroedBlockWhoseSizeOverflowsIsRefused() {
        #expect(ccurl_zeroed_allocation(Int.max, 3) == nil)
        #expect(ccurl_zeroed_allocation(3, Int.max) == nil)
        #expect(ccurl_zeroed_allocation(Int.max / 2 + 2, 4) == nil)
    }

    /// Grown within the cache's sizes (moved), past them (realloc), shrunk and grown within its
    /// own room (kept in place): the bytes written first are there each time.
    @Test func aResizedBlockKeepsItsBytes() throws {
        func pattern(_ block: UnsafeMutableRawPointer, _ count: Int) {
            for index in 0..<count {
                block.storeBytes(of: UInt8(truncatingIfNeeded: index &* 7), toByteOffset: index, as: UInt8.self)
            }
        }
        func hasPattern(_ block: UnsafeMutableRawPointer, _ count: Int) -> Bool {
            (0..<count).allSatisfy {
                block.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 &* 7)
            }
        }
        var block = try #require(ccurl_resized_allocation(nil, 16))
        pattern(block, 16)
        for (size, kept) in [(600, 16), (5_000, 600), (100, 100), (1_000, 100), (20, 20)] {
            let room = malloc_usable_size(block)
            let before = block
            block = try #require(ccurl_resized_allocation(block, size))
            #expect(malloc_usable_size(block) >= size)
            #expect(hasPattern(block, kept), "resized to \(size)")
            if size <= room && size <= 1024 {
                #expect(block == before, "a block with room for \(size) bytes stays where it is")
            }
            pattern(block, size)
        }
        free(block)
    }
}
#endif
