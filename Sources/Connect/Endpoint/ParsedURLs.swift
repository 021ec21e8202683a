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
    /// One parsed URL. An object: a `URL`'s layout is known only at run time, so a struct or
    /// tuple holding one is copied through the Swift runtime, where this is one retain.
    final class Entry: Sendable {
        let url: URL
        /// ``Request/problem(with:)`` for this URL.
        let problem: String?

        init(url: URL, problem: String?) {
            self.url = url
            self.problem = problem
        }
    }

    static let capacity = 256
    /// The entries, and the last one asked for: a client often sends the same URL over and over,
    /// and comparing two strings is cheaper than hashing one.
    private let state = Locked<(entries: [String: Entry], last: (text: String, entry: Entry)?)>(([:], nil))
    /// The last URL made of a base URL and an endpoint alone (see ``lastJoined(base:endpoint:)``).
    private let joined = Locked<(base: String, endpoint: String, entry: Entry)?>(nil)

    /// The entry of the URL last made from `base` (a base URL's text) and `endpoint` with
    /// nothing else in it (no path values, no query items), if these are the two it was made
    /// from: such a URL's text depends on them alone, so the text need not be built again to
    /// look it up.
    func lastJoined(base: String, endpoint: String) -> Entry? {
        joined.withLock { joined in
            guard let joined, joined.endpoint == endpoint, joined.base == base else { return nil }
            return joined.entry
        }
    }

    /// Remembers `entry` as the URL made from `base` and `endpoint` alone.
    func rememberJoined(base: String, endpoint: String, entry: Entry) {
        joined.withLock { $0 = (base, endpoint, entry) }
    }

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
