import FuzzSupport

@testable import Connect

/// Event streams: the same bytes give the same events however they are split.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSentEvents(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let (choice, data) = FuzzInput(start, count).choiceAndData
    let whole = events([data])
    let split = events(FuzzInput.pieces(of: data, sizes: FuzzInput.sizes(from: choice)))
    require(whole == split, "split differently")
    return 0
}

func events(_ pieces: [[UInt8]]) -> [String] {
    var parser = ServerSentEventParser(maximumLineLength: 4096)
    var seen: [String] = []
    for piece in pieces {
        do {
            try parser.feed(piece) { event in seen.append("\(event)") }
        } catch {
            seen.append("failure: \(error)")
            return seen
        }
    }
    return seen
}
