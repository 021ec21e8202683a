import Foundation
import FuzzSupport

@testable import Connect

/// The disk cache's entry files, as a damaged disk, a killed writer or another program may leave
/// them: any bytes decode to a response or to nothing, never a crash; what decodes reads back the
/// same once written again; a file's head agrees with the whole. And the other way: a response made of the
/// input's pieces (any URL, fields and body) reads back as it was written, unless a field would
/// split a header.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheEntry(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    // The input as a file.
    let asFile = CacheEntryFormat.signature + bytes
    for candidate in [bytes, asFile] {
        let head = CacheEntryFormat.head(candidate)
        if let decoded = CacheEntryFormat.decoded(candidate) {
            require(
                CacheEntryFormat.decoded(CacheEntryFormat.encoded(decoded)) == decoded,
                "a decoded entry reads back differently once written again")
            require(
                head?.url == decoded.url && head?.fileLength == candidate.count, "the head disagrees with the entry")
        }
    }
    // The input's pieces as a response.
    let pieces = bytes.split(separator: 0x1F, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    func piece(_ index: Int) -> String { index < pieces.count ? pieces[index] : "" }
    let headers = stride(from: 2, to: min(pieces.count, 12), by: 2).map {
        HTTPHeader(name: piece($0), value: piece($0 + 1))
    }
    let response = CachedResponse(
        url: piece(0), status: count, headers: headers, body: Data(piece(1).utf8), requestHeaders: headers,
        requestTime: -count, responseTime: count << 20, httpVersion: piece(12))
    let splitsAHeader = headers.contains { field in
        [field.name, field.value].contains { $0.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }
    }
    let encoded = CacheEntryFormat.encoded(response)
    let decoded = CacheEntryFormat.decoded(encoded)
    require(splitsAHeader ? decoded == nil : decoded == response, "a response did not read back as written")
    return 0
}
