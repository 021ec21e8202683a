import FuzzSupport

@testable import Connect

/// JSON Lines and text lines: the same bytes give the same numbered lines however they are
/// split, and no line holds a line break.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineSplitter(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let whole = FuzzInput(start, count).readWholeAndSplit(lines)
    for line in whole where !line.hasPrefix("failure") {
        require(!line.contains("\n"), "a line holds a line feed")
    }
    return 0
}

func lines(_ pieces: [[UInt8]]) -> [String] {
    var splitter = LineSplitter(maximumLineLength: 4096)
    var seen: [String] = []
    do {
        for piece in pieces {
            try splitter.feed(piece) { line, number in
                seen.append("\(number): " + String(decoding: line, as: UTF8.self))
            }
        }
    } catch {
        seen.append("failure: \(error)")
        return seen
    }
    if let (line, number) = splitter.finish() { seen.append("\(number): " + String(decoding: line, as: UTF8.self)) }
    return seen
}
