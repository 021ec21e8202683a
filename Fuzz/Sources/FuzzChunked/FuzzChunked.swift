import FuzzSupport

@testable import ConnectWire

/// Chunked bodies: the same bytes give the same body, trailers, ending or problem however they
/// are split, and a body the decoder accepts re-encodes to one it reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunked(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let whole = FuzzInput(start, count).readWholeAndSplit(decode)
    if case .body(let body, let trailers, true) = whole {
        // Re-encoded as one chunk with the same trailers, it reads back the same.
        var encoded = Array(String(body.count, radix: 16).utf8) + [13, 10] + body + [13, 10]
        if body.isEmpty { encoded = [] }
        encoded += Array("0\r\n".utf8) + trailers + [13, 10]
        require(decode([encoded]) == whole, "re-encoded body reads differently")
    }
    return 0
}

enum Outcome: Equatable {
    case body([UInt8], trailers: [UInt8], complete: Bool)
    case problem(ChunkedDecoder.Problem)
}

func decode(_ pieces: [[UInt8]]) -> Outcome {
    var decoder = ChunkedDecoder()
    var body: [UInt8] = []
    for piece in pieces {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: piece.count, alignment: 1)
        defer { input.deallocate() }
        input.copyBytes(from: piece)
        do {
            _ = try decoder.decode(UnsafeRawBufferPointer(input)) { chunk in
                body += chunk
                return true
            }
        } catch {
            return .problem(error)
        }
    }
    return .body(body, trailers: decoder.trailers, complete: decoder.isComplete)
}
