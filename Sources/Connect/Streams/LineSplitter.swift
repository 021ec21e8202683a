/// Splits a body into lines as it arrives: a line ends at LF (a CR before it is dropped), and a
/// last line without one counts at the end. A line longer than ``maximumLineLength`` fails
/// instead of growing memory.
struct LineSplitter {
    /// Why a body cannot be split.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case lineTooLong(line: Int, limit: Int)

        var description: String {
            switch self {
            case .lineTooLong(let line, let limit): return "line \(line) is longer than \(limit) bytes"
            }
        }
    }

    let maximumLineLength: Int
    private var line: [UInt8] = []
    /// Lines handed out so far.
    private(set) var count = 0

    init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// Reads `bytes`, handing each line they complete (without its line end) to `emit`, with its
    /// number from 1.
    mutating func feed(_ bytes: some Collection<UInt8>, emit: (_ line: [UInt8], _ number: Int) throws -> Void) throws {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                count += 1
                try emit(line, count)
                line.removeAll(keepingCapacity: true)
            } else {
                guard line.count < maximumLineLength else {
                    throw Failure.lineTooLong(line: count + 1, limit: maximumLineLength)
                }
                line.append(byte)
            }
        }
    }

    /// The body ended: its last line, if it had no line end.
    mutating func finish() -> (line: [UInt8], number: Int)? {
        guard !line.isEmpty else { return nil }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        count += 1
        defer { line.removeAll() }
        return (line, count)
    }
}
