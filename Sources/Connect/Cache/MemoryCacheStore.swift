import ConnectFutures

/// Stored responses in memory, bounded by a capacity in bytes: the least recently used go
/// first when a new one needs room, and one larger than the whole capacity is not stored. Keyed
/// by URL, with a URL's variants (RFC 9111 §4.1) side by side, the most recently stored first.
/// Safe to use from any thread: one lock around its state.
final class MemoryCacheStore: Sendable {
    private struct Entry {
        var response: CachedResponse
        /// When it was last stored or used, in this store's own count of uses.
        var lastUse: Int
    }

    private struct State {
        var entries: [String: [Entry]] = [:]
        var byteCount = 0
        var uses = 0
    }

    /// The most bytes the stored responses take together (``CachedResponse/byteCount``).
    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The bytes the stored responses take now.
    var byteCount: Int { state.withLock { $0.byteCount } }

    /// The stored response for `url` that answers a request with `requestHeaders`, if any; it
    /// counts as used.
    func response(for url: String, requestHeaders: [HTTPHeader]) -> CachedResponse? {
        state.withLock { state in
            guard let variants = state.entries[url],
                let index = variants.firstIndex(where: { $0.response.answers(requestHeaders) })
            else { return nil }
            state.uses += 1
            state.entries[url]?[index].lastUse = state.uses
            return variants[index].response
        }
    }

    /// Stores `response` in place of the variant of its URL that answers the same request, then
    /// makes room by dropping the least recently used responses. Not stored when it alone is
    /// larger than the capacity (and the variant it would replace is dropped: it is outdated).
    func store(_ response: CachedResponse) {
        state.withLock { state in
            let size = response.byteCount
            var variants = state.entries[response.url] ?? []
            if let index = variants.firstIndex(where: { $0.response.answers(response.varyingRequestHeaders) }) {
                state.byteCount -= variants[index].response.byteCount
                variants.remove(at: index)
            }
            guard size <= capacity else {
                state.entries[response.url] = variants.isEmpty ? nil : variants
                return
            }
            state.uses += 1
            variants.insert(Entry(response: response, lastUse: state.uses), at: 0)
            state.entries[response.url] = variants
            state.byteCount += size
            Self.evict(&state, toFit: capacity)
        }
    }

    /// Drops every stored variant of `url` (an unsafe request changed it, RFC 9111 §4.4).
    func remove(_ url: String) {
        state.withLock { state in
            guard let variants = state.entries.removeValue(forKey: url) else { return }
            state.byteCount -= variants.reduce(0) { $0 + $1.response.byteCount }
        }
    }

    /// Drops every stored response.
    func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Drops the least recently used responses until the rest fit `capacity`. A scan of every
    /// entry per response dropped: eviction runs only when a store overflows.
    private static func evict(_ state: inout State, toFit capacity: Int) {
        while state.byteCount > capacity {
            var oldest: (url: String, index: Int, lastUse: Int)?
            for (url, variants) in state.entries {
                for (index, entry) in variants.enumerated() where entry.lastUse < oldest?.lastUse ?? .max {
                    oldest = (url, index, entry.lastUse)
                }
            }
            guard let oldest, let removed = state.entries[oldest.url]?.remove(at: oldest.index) else { return }
            state.byteCount -= removed.response.byteCount
            if state.entries[oldest.url]?.isEmpty == true { state.entries[oldest.url] = nil }
        }
    }
}
