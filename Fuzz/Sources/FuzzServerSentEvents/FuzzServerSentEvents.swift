import FuzzSupport

@testable import Connect

/// Event streams: the same bytes give the same events however they are split.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSentEvents(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = FuzzInput(start, count).readWholeAndSplit(events)
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
