import Foundation

/// One workload's line-up: each implementation's median, and its time as a ratio to each
/// reference implementation measured in the same rounds.
struct Row {
    let workload: String
    let results: [(name: String, sample: Sample)]
    /// The implementations the others are compared with, e.g. SwiftNIO and the naive future.
    let references: [String]

    func sample(_ name: String) -> Sample {
        results.first { $0.name == name }!.sample
    }

    /// `name`'s time over `reference`'s.
    func ratio(_ name: String, to reference: String) -> Double {
        sample(name).nanosecondsPerStep / sample(reference).nanosecondsPerStep
    }

    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| workload | implementation | ns/step | allocations/step | time vs |",
            "| --- | --- | ---: | ---: | --- |"
        ]
        for row in rows {
            for (name, sample) in row.results {
                let ratios = row.references.filter { $0 != name }.map { "\(format(row.ratio(name, to: $0), 2))x \($0)" }
                lines.append(
                    "| \(row.workload) | \(name) | \(format(sample.nanosecondsPerStep, 1)) | \(format(sample.allocationsPerStep, 2)) | \(ratios.joined(separator: ", ")) |"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
