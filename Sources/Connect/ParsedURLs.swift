import ConnectFutures
import Foundation

/// URLs the request builder has already parsed and checked, by their text.
///
/// Most clients send the same few URLs again and again, and parsing one (Foundation's RFC 3986
/// parser) plus reading its scheme and host was about 5,000 instructions of every request, more
/// than the rest of building it. Bounded: when full, it starts over.
final class ParsedURLs: Sendable {
    struct Entry: Sendable {
        let url: URL
        /// ``Request/problem(with:)`` for this URL.
        let problem: String?
    }

    static let capacity = 256
    private let entries = Locked<[String: Entry]>([:])

    /// The URL `text` spells, with what would keep it from being requested; `nil` if Foundation
    /// cannot parse it.
    func entry(for text: String) -> Entry? {
        if let known = entries.withLock({ $0[text] }) { return known }
        guard let url = URL(string: text) else { return nil }
        let entry = Entry(url: url, problem: Request.problem(with: url))
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[text] = entry
        }
        return entry
    }
}
