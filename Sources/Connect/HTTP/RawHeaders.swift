internal import ConnectWire

/// Header lines as received ("Name: value", each ending in CRLF), parsed into ``HTTPHeader``
/// values only when someone reads them.
///
/// Building a `String` pair per header for every response, on the transfer thread, and freeing
/// them on the callback queue would cost every response for headers most callers never read.
struct RawHeaders: Sendable {
    private(set) var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    /// Appends one line as libcurl hands it over, line ending included.
    mutating func append(line: UnsafeRawBufferPointer) {
        if bytes.isEmpty { bytes.reserveCapacity(512) }
        bytes.append(contentsOf: line.bindMemory(to: UInt8.self))
    }

    /// Joins an obs-fold line (one that starts with a space or tab) to the header line before
    /// it, with one space in place of the fold, as RFC 9112 §5.2 asks of a user agent.
    mutating func appendContinuation(_ line: UnsafeRawBufferPointer) {
        var start = 0
        var end = line.count
        while start < end, line[start] == UInt8(ascii: " ") || line[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start,
            [UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: " "), UInt8(ascii: "\t")].contains(line[end - 1])
        { end -= 1 }
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") { bytes.removeLast() }
        if start < end {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[start..<end]).bindMemory(to: UInt8.self))
        }
        bytes.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")])
    }

    var capacity: Int { bytes.capacity }

    mutating func removeAll(keepingCapacity: Bool = true) {
        bytes.removeAll(keepingCapacity: keepingCapacity)
    }

    /// The same lines in a block of their own, allocated by the calling thread (assigning would
    /// share this one).
    func copy() -> RawHeaders {
        guard !bytes.isEmpty else { return RawHeaders() }
        return RawHeaders(bytes: bytes.withUnsafeBufferPointer { Array($0) })
    }

    /// The headers, in order.
    func parsed() -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        forEachHeader { name, value in
            headers.append(
                HTTPHeader(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
            return false
        }
        return headers
    }

    /// The value of the first header named `name` (ASCII, ignoring case), without parsing the rest.
    func value(for name: String) -> String? {
        bytes.withUnsafeBytes { Self.value(for: name, in: $0) }
    }

    /// The values of every header named `name` (ASCII, ignoring case), in order.
    func values(for name: String) -> [String] {
        bytes.withUnsafeBytes { Self.values(for: name, in: $0) }
    }

    /// Calls `body` with the name and value bytes of each header line, in order, until it
    /// returns `true`.
    private func forEachHeader(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool) {
        bytes.withUnsafeBytes { Self.forEachHeader(in: $0, body) }
    }

    /// The value of the first header named `name` (ASCII, ignoring case) in the header `lines`
    /// (each "Name: value" and a line ending), read where they are.
    static func value(for name: String, in lines: UnsafeRawBufferPointer) -> String? {
        var name = name
        return name.withUTF8 { wanted in
            var found: String?
            forEachHeader(in: lines) { lineName, value in
                guard HeaderText.equalIgnoringASCIICase(lineName, UnsafeRawBufferPointer(wanted)) else { return false }
                found = String(decoding: value, as: UTF8.self)
                return true
            }
            return found
        }
    }

    /// The values of every header named `name` (ASCII, ignoring case) in the header `lines`, in
    /// order, read where they are.
    static func values(for name: String, in lines: UnsafeRawBufferPointer) -> [String] {
        var name = name
        return name.withUTF8 { wanted in
            var found: [String] = []
            forEachHeader(in: lines) { lineName, value in
                if HeaderText.equalIgnoringASCIICase(lineName, UnsafeRawBufferPointer(wanted)) {
                    found.append(String(decoding: value, as: UTF8.self))
                }
                return false
            }
            return found
        }
    }

    /// Calls `body` with the name and value bytes of each header line in `all`, in order, until
    /// it returns `true`.
    static func forEachHeader(
        in all: UnsafeRawBufferPointer,
        _ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool
    ) {
        var lineStart = 0
        while lineStart < all.count {
            let lineEnd = all[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? all.count
            let line = UnsafeRawBufferPointer(rebasing: all[lineStart..<lineEnd])
            if let (name, value) = split(line),
                body(UnsafeRawBufferPointer(rebasing: line[name]), UnsafeRawBufferPointer(rebasing: line[value]))
            {
                return
            }
            lineStart = lineEnd
        }
    }

    /// Where the name and the value of a header line are, with the line ending and the blanks
    /// around the value left out; `nil` for a line without a colon (the blank end line).
    static func split(_ line: UnsafeRawBufferPointer) -> (name: Range<Int>, value: Range<Int>)? {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\r") || line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        guard
            let colon = UnsafeRawBufferPointer(rebasing: line[..<end]).withMemoryRebound(
                to: UInt8.self, { $0.firstIndex(of: UInt8(ascii: ":")) })
        else { return nil }
        var valueStart = colon + 1
        while valueStart < end, line[valueStart] == UInt8(ascii: " ") || line[valueStart] == UInt8(ascii: "\t") {
            valueStart += 1
        }
        var valueEnd = end
        while valueEnd > valueStart, line[valueEnd - 1] == UInt8(ascii: " ") || line[valueEnd - 1] == UInt8(ascii: "\t")
        { valueEnd -= 1 }
        return (0..<colon, valueStart..<valueEnd)
    }
}
