import AllocationCounter
import Connect
import Foundation

/// What encoding a request's JSON body costs, side by side: Foundation's `JSONEncoder`,
/// Connect's `RequestBody.json` (the path of `Parameter.jsonObject`) for `Encodable` items and for
/// items that write their own JSON (`JSONWritable`), `Codable` alone (an encoder
/// whose containers write nothing: the floor of any `Codable` encoder), and the same bytes
/// written without `Codable`. The document is `make bench`'s POST body: 22 to-do items, 1 KiB.
///
/// usage: JSONBenchmark                  the table (rounds alternate between the encoders)
///        JSONBenchmark ENCODER COUNT    encodes COUNT documents with one encoder, for callgrind
@main
struct JSONBenchmark {
    /// The document behind an existential, as `Parameter.jsonObject` holds it: no encoder is
    /// specialized for its type.
    static let document: [any Encodable & Sendable] = [Document.items]
    static let writableDocument: [any Encodable & Sendable] = [Document.writableItems]

    /// The document `encoder` encodes: the same items, writable ones for `.writable`.
    static func encoded(by encoder: Encoding) -> any Encodable {
        if encoder == .writable { return writableDocument[0] }
        return document[0]
    }

    static func main() throws {
        let arguments = CommandLine.arguments
        if arguments.count == 3, let encoder = Encoding(rawValue: arguments[1]), let count = Int(arguments[2]) {
            var bytes = 0
            let value = encoded(by: encoder)
            for _ in 0..<count { bytes &+= try encoder.encode(value) }
            print(bytes)
            return
        }
        let rounds = 7
        let perRound = 20_000
        var samples: [Encoding: [(nanoseconds: Double, allocations: Double)]] = [:]
        for _ in 0..<rounds {
            for encoder in Encoding.allCases {
                let allocationsBefore = connect_allocation_count()
                let start = ContinuousClock.now
                var bytes = 0
                let value = encoded(by: encoder)
                for _ in 0..<perRound { bytes &+= try encoder.encode(value) }
                let elapsed = ContinuousClock.now - start
                let allocations = Double(connect_allocation_count() - allocationsBefore) / Double(perRound)
                precondition(bytes > 0 || encoder == .codableAlone)
                let nanoseconds =
                    (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
                    / Double(perRound)
                samples[encoder, default: []].append((nanoseconds, allocations))
            }
        }
        let medians = samples.mapValues { runs in
            (
                nanoseconds: runs.map(\.nanoseconds).sorted()[runs.count / 2],
                allocations: runs.map(\.allocations).sorted()[runs.count / 2]
            )
        }
        let floor = medians[.codableAlone]!.nanoseconds
        let foundation = medians[.foundation]!.nanoseconds
        print("| encoder | ns/document | allocations/document | vs JSONEncoder | vs Codable alone |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for encoder in Encoding.allCases {
            let median = medians[encoder]!
            print(
                String(
                    format: "| %@ | %.0f | %.1f | %.2fx | %.2fx |", encoder.title, median.nanoseconds,
                    median.allocations, median.nanoseconds / foundation, median.nanoseconds / floor))
        }
    }
}
