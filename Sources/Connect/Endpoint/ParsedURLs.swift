import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// URLs the request builder has already parsed and checked, by their text.
///
/// Most clients send the same few URLs again and again, and parsing one (Foundation's RFC 3986
/// parser) and reading its scheme and host costs more than the rest of building a request.
/// Bounded: when full, it starts over.
final class ParsedURLs: Sendable {
    struct Entry: Sendable {
        let url: URL
        /// ``Request/problem(with:)`` for this URL.
        let problem: String?
    }

    static let capacity = 256
    /// The entries, and the last one asked for: a client often sends the same URL over and over,
    /// and comparing two strings is cheaper than hashing one.
    private let state = Locked<(entries: [String: Entry], last: (text: String, entry: Entry)?)>(([:], nil))

    /// The URL `text` spells, with what would keep it from being requested; `nil` if Foundation
    /// cannot parse it.
    func entry(for text: String) -> Entry? {
        let known = state.withLock { state -> Entry? in
            if let last = state.last, last.text == text { return last.entry }
            guard let entry = state.entries[text] else { return nil }
            state.last = (text, entry)
            return entry
        }
        if let known { return known }
        guard let url = URL(string: text) else { return nil }
        let entry = Entry(url: url, problem: Request.problem(with: url))
        state.withLock { state in
            if state.entries.count >= Self.capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[text] = entry
            state.last = (text, entry)
        }
        return entry
    }
}
