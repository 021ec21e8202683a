import FuzzSupport

@testable import Connect
@testable import ConnectWire

/// Response heads as the transport reads them, line by line: no crash, and what the parser
/// learns stays within what it promises. Each line goes first to the head screen (as libcurl
/// 7.88 hands it to the write callback first, see `HeadScreen`), in pieces the first byte
/// chooses: a line the screen refuses is one the parser refuses too, the screen closes where a
/// model of libcurl starts the body, and no line it lets through is the one that crashes such a
/// libcurl (a folded line before any field of the transfer was stored).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseHead(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count).bytes
    var parser = ResponseHeadParser()
    var headStartedWithStatusLine = false
    var screen = HeadScreen(enabled: true)
    var libcurl = StoredHeadersModel()
    let sizes = FuzzInput.sizes(from: input.first ?? 0)
    var lineStart = 0
    for index in input.indices where input[index] == UInt8(ascii: "\n") || index == input.count - 1 {
        let line = Array(input[lineStart...index])
        lineStart = index + 1
        // The screen takes the line first, while it is open; the model of libcurl every line
        // it was not refused.
        let screened = screen.isOpen
        let startsHead = libcurl.expectsStatusLine
        var screenRefused = false
        if screened {
            for piece in FuzzInput.pieces(of: line, sizes: sizes)
            where piece.withUnsafeBytes({ screen.take($0) }) != nil {
                screenRefused = true
                break
            }
        }
        if !screenRefused {
            require(libcurl.stores(line), "a folded line before any stored field, screened: \(screened)")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: line.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: line)
        let kind = try? parser.read(UnsafeRawBufferPointer(buffer))
        if startsHead { headStartedWithStatusLine = kind == .status }
        // A head whose first line the parser does not read as a status line (after an interim
        // head, it may read one as a field) is one libcurl refuses at that line itself.
        if screenRefused, headStartedWithStatusLine {
            require(kind == nil, "the screen refused a line the parser reads")
        }
        guard let kind, !screenRefused else { break }
        require(screen.isOpen == libcurl.readsHead, "the screen and libcurl disagree on where the body starts")
        if kind == .status {
            require((100...999).contains(parser.statusCode), "status \(parser.statusCode)")
            _ = line.withUnsafeBytes {
                ResponseHeadParser.unusualReasonPhrase(ofStatusLine: $0, statusCode: parser.statusCode)
            }
        }
        if let length = parser.contentLength { require(length >= 0, "negative Content-Length") }
        require(parser.contentCodings.count <= BodyDecoder.maximumCodings, "too many codings kept")
    }
    // The field-value helpers on their own.
    input.withUnsafeBytes { bytes in
        for element in ResponseHeadParser.listElements(bytes) {
            require(
                !element.isEmpty && element.first != UInt8(ascii: " ") && element.last != UInt8(ascii: " "),
                "list element with blanks")
        }
        if let length = try? ResponseHeadParser.contentLength(bytes) { require(length >= 0, "negative length") }
    }
    return 0
}

/// What libcurl 7.88 does with the head lines it reads, as far as its stored headers go
/// (`http.c`, `headers.c`), written apart from `HeadScreen`: a head's first line is its status
/// line, which it does not store; a line that starts with CR or LF ends the head, and another
/// head follows a 1xx other than 101; every other line is stored, a folded one onto the field
/// stored before it, which in a handle's first head of the transfer with no field stored yet is
/// the last transfer's, freed.
struct StoredHeadersModel {
    /// The next line is a head's first, its status line.
    private(set) var expectsStatusLine = true
    private var statusCode = 0
    private var storedAny = false
    private var inBody = false

    /// The next line is a head's, not the body's.
    var readsHead: Bool { !inBody }

    /// Takes one whole line; false when storing it would extend a freed field.
    mutating func stores(_ line: [UInt8]) -> Bool {
        guard !inBody, let first = line.first else { return true }
        if expectsStatusLine {
            expectsStatusLine = false
            statusCode = Self.statusCode(line)
            return true
        }
        if first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") {
            if (100..<200).contains(statusCode), statusCode != 101 { expectsStatusLine = true } else { inBody = true }
            return true
        }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { return storedAny }
        storedAny = true
        return true
    }

    /// The three digits after the version, as libcurl's `sscanf` reads them; 0 without.
    static func statusCode(_ line: [UInt8]) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return 0 }
        let digits = line[space...].drop { $0 == UInt8(ascii: " ") }.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return 0
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
