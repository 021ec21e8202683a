import FuzzSupport

@testable import ConnectWire

/// Response heads as the transport reads them, line by line: no crash, and what the parser
/// learns stays within what it promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseHead(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count).bytes
    var parser = ResponseHeadParser()
    var lineStart = 0
    for index in input.indices where input[index] == UInt8(ascii: "\n") || index == input.count - 1 {
        let line = Array(input[lineStart...index])
        lineStart = index + 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: line.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: line)
        guard let kind = try? parser.read(UnsafeRawBufferPointer(buffer)) else { break }
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
