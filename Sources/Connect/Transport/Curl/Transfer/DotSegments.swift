/// RFC 3986 §5.2.4's removal of dot-segments from a URL's path, for literal `.` and `..`
/// segments alone.
///
/// libcurl removes dot-segments itself unless told to keep the path as it is, and libcurl 8
/// counts percent-encoded dots (`%2E`) as dots too, where 7.88 does not. Connect encodes a path
/// value of `.` or `..` as `%2E` or `%2E%2E` so that it stays one segment of data (see
/// ``RequestBuilder``), so the transport asks libcurl to keep every path as it is and removes
/// the literal dot-segments here, the same on every libcurl.
enum DotSegments {
    /// `url` (absolute, `scheme://authority/path?query#fragment`) with the literal dot-segments
    /// of its path removed; `url` itself when its path has none, the common case.
    static func removing(fromURL url: String) -> String {
        let bytes = Array(url.utf8)
        guard var pathStart = bytes.firstRange(of: Array("://".utf8))?.upperBound else { return url }
        while pathStart < bytes.count, bytes[pathStart] != UInt8(ascii: "/"), bytes[pathStart] != UInt8(ascii: "?"),
            bytes[pathStart] != UInt8(ascii: "#")
        {
            pathStart += 1
        }
        var pathEnd = pathStart
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") {
            pathEnd += 1
        }
        guard pathStart < pathEnd, bytes[pathStart] == UInt8(ascii: "/") else { return url }
        let path = bytes[pathStart..<pathEnd]
        guard let cleaned = removing(fromPath: path) else { return url }
        return String(decoding: bytes[..<pathStart] + cleaned + bytes[pathEnd...], as: UTF8.self)
    }

    /// An absolute path (starting with `/`) without its literal dot-segments, or `nil` when it
    /// has none.
    static func removing(fromPath path: ArraySlice<UInt8>) -> [UInt8]? {
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        guard segments.contains(where: { isDotSegment($0) }) else { return nil }
        var kept: [ArraySlice<UInt8>] = []
        for (index, segment) in zip(1..., segments) {
            let isLast = index == segments.count
            if segment.elementsEqual([UInt8(ascii: ".")]) {
                if isLast { kept.append(segment[segment.startIndex..<segment.startIndex]) }
            } else if segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                if !kept.isEmpty { kept.removeLast() }
                if isLast { kept.append(segment[segment.startIndex..<segment.startIndex]) }
            } else {
                kept.append(segment)
            }
        }
        var result: [UInt8] = []
        for segment in kept {
            result.append(UInt8(ascii: "/"))
            result += segment
        }
        return result.isEmpty ? [UInt8(ascii: "/")] : result
    }

    private static func isDotSegment(_ segment: ArraySlice<UInt8>) -> Bool {
        segment.elementsEqual([UInt8(ascii: ".")]) || segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
    }
}
