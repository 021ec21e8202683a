#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport's ``AlternativeServiceTable`` and the file it is kept in
/// (``AlternativeServices/persisted(at:)``): read once when the transport is made, written again
/// whenever a change would show in it. The table decides; this reads the clock and the file.
///
/// Used by the transfer thread alone, after it is made.
final class AlternativeServiceCache {
    private var table: AlternativeServiceTable
    /// Where the table is kept, if anywhere.
    private let path: String?

    /// The cache `configuration` asks for, or `nil` when it ignores `Alt-Svc`.
    init?(_ configuration: AlternativeServices) {
        guard configuration.isEnabled else { return nil }
        if case .file(let path) = configuration.storage {
            self.path = path
            let text = (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
            table = AlternativeServiceTable(file: text ?? "", now: Self.now())
        } else {
            path = nil
            table = AlternativeServiceTable()
        }
    }

    /// The second it is now, as the table counts.
    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// The alternative to reach `origin` at now, if one holds.
    func alternative(for origin: AlternativeServiceTable.Origin) -> AlternativeServiceTable.Alternative? {
        table.alternative(for: origin, now: Self.now())
    }

    /// `origin` answered with these `Alt-Svc` field values.
    func record(_ values: [String], from origin: AlternativeServiceTable.Origin) {
        let now = Self.now()
        if table.record(AltSvcField(values.joined(separator: ", ")), from: origin, now: now) { save(now: now) }
    }

    /// `alternative` of `origin` failed.
    func markBroken(_ alternative: AlternativeServiceTable.Alternative, of origin: AlternativeServiceTable.Origin) {
        table.markBroken(alternative, of: origin, now: Self.now())
    }

    /// Writes the file, whole, through a temporary file renamed over it, so that a reader never
    /// sees half of one. A file that cannot be written is left as it was: the table in memory
    /// still serves this client.
    private func save(now: Int) {
        guard let path else { return }
        try? Data(table.fileText(now: now).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
