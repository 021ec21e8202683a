/// Reads a body in HTTP/1.1's chunked transfer coding (RFC 9112 §7.1) as it arrives, strictly:
/// a chunk size is one or more hex digits (no `0x`, no sign), optionally followed by extensions
/// after a `;`; every size line and every chunk's data ends with CRLF; the trailer section is
/// field lines, each with a name and a colon. Anything else is a ``Problem``.
///
/// libcurl frames chunked bodies leniently (it reads `0x5` as a last chunk, and takes the CR of
/// a chunk one byte too long as data), so the transport has libcurl hand over the body still
/// chunked (`CURLOPT_HTTP_TRANSFER_DECODING` 0) and decodes it here, before libcurl acts on the
/// same bytes. The trailer fields are kept apart from the head's (RFC 9110 §6.5.1).
///
/// A plain value: it holds only its state and the trailer section's bytes.
package struct ChunkedDecoder {
    /// Why a chunked body is refused.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case malformedChunkSize
        case chunkSizeTooLarge
        case missingLineEnd
        case malformedChunkExtension
        case malformedTrailer
        case trailerSectionTooLarge

        package var description: String {
            switch self {
            case .malformedChunkSize: return "a chunk size is not hex digits"
            case .chunkSizeTooLarge: return "a chunk size is too large"
            case .missingLineEnd: return "a chunk or its size line does not end with CRLF"
            case .malformedChunkExtension: return "a chunk extension holds a control character"
            case .malformedTrailer: return "a trailer line is not a field"
            case .trailerSectionTooLarge: return "the trailer section is too large"
            }
        }
    }

    private enum State: Equatable {
        case sizeStart
        case size(digits: Int)
        /// Blanks after the size, before an extension or the line's end.
        case sizeBlanks
        case sizeExtension
        case sizeLF
        case data(remaining: Int)
        case dataCR
        case dataLF
        case trailerLineStart
        case trailerLine
        case trailerLF
        case endLF
        case complete
    }

    /// The largest trailer section kept, in bytes.
    package static let maximumTrailerSection = 64 << 10

    /// A decoder before the first chunk.
    package init() {}

    private var state = State.sizeStart
    private var size = 0
    /// The trailer section's field lines, each ending with CRLF.
    package private(set) var trailers: [UInt8] = []
    private var trailerLineStart = 0

    /// The last chunk and the trailer section have come: the body is whole. Bytes after it are
    /// not part of it.
    package var isComplete: Bool { state == .complete }

    /// Decodes `input`, handing each run of chunk data to `deliver`, which returns `false` to
    /// stop.
    ///
    /// - Returns: whether every run was delivered.
    package mutating func decode(
        _ input: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool
    ) throws(Problem) -> Bool {
        var index = 0
        let count = input.count
        while index < count {
            let byte = input[index]
            switch state {
            case .sizeStart, .size:
                let digits: Int
                if case .size(let soFar) = state { digits = soFar } else { digits = 0 }
                if let value = PercentEncoding.hexValue(byte).map(Int.init) {
                    guard digits < 15 else { throw .chunkSizeTooLarge }
                    size = size << 4 | value
                    state = .size(digits: digits + 1)
                } else {
                    guard digits > 0 else { throw .malformedChunkSize }
                    switch byte {
                    case UInt8(ascii: "\r"): state = .sizeLF
                    case UInt8(ascii: ";"): state = .sizeExtension
                    case UInt8(ascii: " "), UInt8(ascii: "\t"): state = .sizeBlanks
                    default: throw .malformedChunkSize
                    }
                }
                index += 1
            case .sizeBlanks:
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\t"): break
                case UInt8(ascii: ";"): state = .sizeExtension
                case UInt8(ascii: "\r"): state = .sizeLF
                default: throw .malformedChunkSize
                }
                index += 1
            case .sizeExtension:
                if byte == UInt8(ascii: "\r") {
                    state = .sizeLF
                } else if byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7F {
                    throw .malformedChunkExtension
                }
                index += 1
            case .sizeLF:
                guard byte == UInt8(ascii: "\n") else { throw .missingLineEnd }
                index += 1
                if size == 0 {
                    state = .trailerLineStart
                } else {
                    state = .data(remaining: size)
                    size = 0
                }
            case .data(let remaining):
                let run = min(remaining, count - index)
                let left = remaining - run
                state = left == 0 ? .dataCR : .data(remaining: left)
                let piece = UnsafeRawBufferPointer(rebasing: input[index..<(index + run)])
                index += run
                if !deliver(piece) { return false }
            case .dataCR:
                guard byte == UInt8(ascii: "\r") else { throw .missingLineEnd }
                state = .dataLF
                index += 1
            case .dataLF:
                guard byte == UInt8(ascii: "\n") else { throw .missingLineEnd }
                state = .sizeStart
                index += 1
            case .trailerLineStart:
                if byte == UInt8(ascii: "\r") {
                    state = .endLF
                } else if byte == UInt8(ascii: "\n") {
                    state = .complete
                } else {
                    // A field line: no folding (a line may not start with a blank).
                    guard byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") else { throw .malformedTrailer }
                    trailerLineStart = trailers.count
                    try appendTrailer(byte)
                    state = .trailerLine
                }
                index += 1
            case .trailerLine:
                switch byte {
                case UInt8(ascii: "\r"):
                    state = .trailerLF
                case UInt8(ascii: "\n"):
                    try endTrailerLine()
                default:
                    guard byte != 0 else { throw .malformedTrailer }
                    try appendTrailer(byte)
                }
                index += 1
            case .trailerLF:
                guard byte == UInt8(ascii: "\n") else { throw .malformedTrailer }
                try endTrailerLine()
                index += 1
            case .endLF:
                guard byte == UInt8(ascii: "\n") else { throw .missingLineEnd }
                state = .complete
                index += 1
            case .complete:
                return true
            }
        }
        return true
    }

    private mutating func appendTrailer(_ byte: UInt8) throws(Problem) {
        guard trailers.count < Self.maximumTrailerSection else { throw .trailerSectionTooLarge }
        trailers.append(byte)
    }

    /// Checks the trailer line just read (a token name, then a colon) and ends it with CRLF.
    private mutating func endTrailerLine() throws(Problem) {
        let line = trailers[trailerLineStart...]
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > trailerLineStart,
            line[..<colon].allSatisfy(HeaderText.isTokenCharacter)
        else { throw .malformedTrailer }
        trailers.append(UInt8(ascii: "\r"))
        trailers.append(UInt8(ascii: "\n"))
        state = .trailerLineStart
    }
}
