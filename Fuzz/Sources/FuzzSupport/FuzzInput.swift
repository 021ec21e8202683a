/// A fuzzer's input read as instructions: a few bytes choose how the rest is fed (the sizes of
/// the pieces a body arrives in), so one input tries one way of splitting the same bytes.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The first byte, and the rest: a choice, and the data.
    public var choiceAndData: (choice: UInt8, data: [UInt8]) {
        guard let first = bytes.first else { return (0, []) }
        return (first, Array(bytes.dropFirst()))
    }

    /// `data` cut into pieces whose sizes cycle through `sizes` (each at least 1).
    public static func pieces(of data: [UInt8], sizes: [Int]) -> [[UInt8]] {
        guard !data.isEmpty else { return [] }
        let sizes = sizes.isEmpty ? [data.count] : sizes.map { max(1, $0) }
        var pieces: [[UInt8]] = []
        var start = 0
        var index = 0
        while start < data.count {
            let end = min(data.count, start + sizes[index % sizes.count])
            pieces.append(Array(data[start..<end]))
            start = end
            index += 1
        }
        return pieces
    }

    /// Piece sizes from a choice byte: 1, 2, 3, 7, 64 or whole.
    public static func sizes(from choice: UInt8) -> [Int] {
        switch choice % 6 {
        case 0: return [1]
        case 1: return [2, 5]
        case 2: return [3]
        case 3: return [7, 1, 13]
        case 4: return [64]
        default: return []
        }
    }
}

extension FuzzInput {
    /// What `read` makes of the data whole, after checking that it makes the same of the data cut
    /// into the pieces the choice byte says: a parser fed as the network feeds it must not
    /// depend on where the reads fall.
    public func readWholeAndSplit<Outcome: Equatable>(_ read: ([[UInt8]]) -> Outcome) -> Outcome {
        let (choice, data) = choiceAndData
        let whole = read([data])
        let split = read(Self.pieces(of: data, sizes: Self.sizes(from: choice)))
        require(whole == split, "split differently: \(whole) / \(split)")
        return whole
    }
}

/// Stops the fuzzer with a finding: a property of the parser that did not hold.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property failed: \(message())") }
}
