import CZlib
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``DiskCacheStore`` writes a ``CachedResponse`` to a file, and reads one back: a decision
/// value (bytes in, a response or nothing out), tested with tables and fuzzed, since the file may
/// be cut short by a killed process, damaged, or not Connect's at all.
///
/// A file is, in order (integers little-endian; a string is its UTF-8 length as a `UInt32`,
/// then its bytes):
///
/// | field | encoding |
/// | --- | --- |
/// | signature | the 24 bytes `Connect cache entry v1\r\n` |
/// | URL | string |
/// | status | `Int64` |
/// | HTTP version | string |
/// | request time, response time | `Int64` each, seconds since 1970 |
/// | header count, then each header's name and value | `UInt32`, strings |
/// | the request's varying header count, then each name and value | `UInt32`, strings |
/// | body length, then the body | `UInt64`, bytes |
/// | checksum | CRC-32 (zlib's) of every byte before it, `UInt32` |
///
/// Everything up to the body is the *head*, which a store reads alone to index its files.
enum CacheEntryFormat {
    static let signature = Array("Connect cache entry v1\r\n".utf8)

    /// The fields a store indexes a file by, read from its head without the body.
    struct Head: Equatable, Sendable {
        var url: String
        var headers: [HTTPHeader]
        var varyingRequestHeaders: [HTTPHeader]
        /// Where the body starts, and its length.
        var bodyOffset: Int
        var bodyLength: Int
        /// The whole file's length: head, body and checksum.
        var fileLength: Int { bodyOffset + bodyLength + 4 }
    }

    /// The file's bytes for `response`.
    static func encoded(_ response: CachedResponse) -> [UInt8] {
        var bytes = signature
        bytes.reserveCapacity(response.byteCount + 256)
        append(response.url, to: &bytes)
        append(Int64(response.status), to: &bytes)
        append(response.httpVersion, to: &bytes)
        append(Int64(response.requestTime), to: &bytes)
        append(Int64(response.responseTime), to: &bytes)
        for fields in [response.headers, response.varyingRequestHeaders] {
            append(UInt32(fields.count), to: &bytes)
            for field in fields {
                append(field.name, to: &bytes)
                append(field.value, to: &bytes)
            }
        }
        append(UInt64(response.body.count), to: &bytes)
        bytes.append(contentsOf: response.body)
        append(checksum(bytes[...]), to: &bytes)
        return bytes
    }

    /// The response in `bytes`, or `nil` if they are not a whole, undamaged entry: another
    /// signature, a length past the end, bytes after the checksum, or a checksum that does not
    /// match.
    static func decoded(_ bytes: [UInt8]) -> CachedResponse? {
        guard let head = head(bytes), head.fileLength == bytes.count else { return nil }
        var reader = Reader(bytes: bytes[...], offset: head.bodyOffset + head.bodyLength)
        guard let stored = reader.uint32(), stored == checksum(bytes[..<(bytes.count - 4)]) else { return nil }
        // The head again, for the fields the index does not keep.
        var fields = Reader(bytes: bytes[...], offset: signature.count)
        guard fields.string() != nil, let status = fields.int64(), let httpVersion = fields.string(),
            let requestTime = fields.int64(), let responseTime = fields.int64(),
            let status = Int(exactly: status), let requestTime = Int(exactly: requestTime),
            let responseTime = Int(exactly: responseTime)
        else { return nil }
        return CachedResponse(
            url: head.url, status: status, headers: head.headers,
            body: Data(bytes[head.bodyOffset..<(head.bodyOffset + head.bodyLength)]),
            requestHeaders: head.varyingRequestHeaders, requestTime: requestTime, responseTime: responseTime,
            httpVersion: httpVersion)
    }

    /// The head at the start of `bytes`, or `nil` if they do not start with a whole head (the
    /// body and checksum need not follow).
    static func head(_ bytes: [UInt8]) -> Head? {
        guard bytes.starts(with: signature) else { return nil }
        var reader = Reader(bytes: bytes[...], offset: signature.count)
        guard let url = reader.string(), reader.int64() != nil, reader.string() != nil, reader.int64() != nil,
            reader.int64() != nil, let headers = reader.fields(), let varying = reader.fields(),
            let bodyLength = reader.uint64(), let length = Int(exactly: bodyLength),
            length <= Int.max - reader.offset - 4
        else { return nil }
        return Head(
            url: url, headers: headers, varyingRequestHeaders: varying, bodyOffset: reader.offset,
            bodyLength: length)
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc = crc32(0, nil, 0)
            var rest = UnsafeBufferPointer(rebasing: buffer[...])
            // zlib takes a length of at most UInt32.max at a time.
            while !rest.isEmpty {
                let count = min(rest.count, Int(UInt32.max))
                crc = crc32(crc, rest.baseAddress, uInt(count))
                rest = UnsafeBufferPointer(rebasing: rest[count...])
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    private static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ string: String, to bytes: inout [UInt8]) {
        append(UInt32(string.utf8.count), to: &bytes)
        bytes.append(contentsOf: string.utf8)
    }

    /// Reads the fields in order, `nil` for one that runs past the end.
    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int

        mutating func integer<Value: FixedWidthInteger>(_: Value.Type) -> Value? {
            let size = MemoryLayout<Value>.size
            guard bytes.endIndex - offset >= size else { return nil }
            var value: Value = 0
            for index in 0..<size { value |= Value(bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }

        mutating func uint32() -> UInt32? { integer(UInt32.self) }
        mutating func uint64() -> UInt64? { integer(UInt64.self) }
        mutating func int64() -> Int64? { integer(Int64.self) }

        mutating func string() -> String? {
            guard let length = uint32().map(Int.init), bytes.endIndex - offset >= length else { return nil }
            defer { offset += length }
            return String(validating: bytes[offset..<(offset + length)], as: UTF8.self)
        }

        private func splitsAHeader(_ text: String) -> Bool {
            text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
        }

        mutating func fields() -> [HTTPHeader]? {
            guard let count = uint32() else { return nil }
            var fields: [HTTPHeader] = []
            for _ in 0..<count {
                // A CR, LF or NUL would split a header when a stored validator goes out again.
                guard let name = string(), let value = string(), !splitsAHeader(name), !splitsAHeader(value)
                else { return nil }
                fields.append(HTTPHeader(name: name, value: value))
            }
            return fields
        }
    }
}
