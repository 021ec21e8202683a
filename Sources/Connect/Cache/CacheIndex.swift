/// The entries of a cache store by URL, a URL's variants (RFC 9111 §4.1) side by side, the most
/// recently stored first, with their total size and their order of use: which entry answers a
/// request, which one a new entry replaces, and which go when the store is over its capacity
/// (the least recently used). A value; a store keeps it under its lock and does the I/O the
/// returned items call for.
struct CacheIndex<Item> {
    fileprivate struct Entry {
        var item: Item
        var vary: [String]
        var varyingRequestHeaders: [HTTPHeader]
        var size: Int
        /// When it was last stored or used, in this index's own count of uses.
        var lastUse: Int

        func answers(_ requestHeaders: [HTTPHeader]) -> Bool {
            CacheVariant.matches(
                vary: vary, storedRequestHeaders: varyingRequestHeaders, requestHeaders: requestHeaders)
        }
    }

    /// The most the entries' sizes may add up to.
    let capacity: Int
    /// What the entries' sizes add up to now.
    private(set) var byteCount = 0
    fileprivate var entries: [String: [Entry]] = [:]
    private var uses = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The item stored for `url` that answers a request with `requestHeaders`, if any; it
    /// counts as used.
    mutating func use(_ url: String, requestHeaders: [HTTPHeader]) -> Item? {
        // One hash of the URL: the entry is found and touched through its slot.
        guard let slot = entries.index(forKey: url),
            let index = entries.values[slot].firstIndex(where: { $0.answers(requestHeaders) })
        else { return nil }
        uses += 1
        entries.values[slot][index].lastUse = uses
        return entries.values[slot][index].item
    }

    /// Adds `item` for `url`, the most recently used, in place of the variant that answers the
    /// same request (`vary`: the fields its response's `Vary` names; `varyingRequestHeaders`:
    /// those fields of its request); then drops the least recently used until the rest fit.
    /// An item larger than the whole capacity is not added (the variant it would replace still
    /// goes: it is outdated). Returns the items that left.
    mutating func insert(
        _ item: Item, for url: String, vary: [String], varyingRequestHeaders: [HTTPHeader], size: Int
    ) -> [Item] {
        var left: [Item] = []
        let fits = size <= capacity
        if fits { uses += 1 }
        let entry = Entry(
            item: item, vary: vary, varyingRequestHeaders: varyingRequestHeaders, size: size, lastUse: uses)
        if let slot = entries.index(forKey: url) {
            // The variants are changed in place, through the slot: no second hash, no copy.
            var placed = false
            if let index = entries.values[slot].firstIndex(where: { $0.answers(varyingRequestHeaders) }) {
                byteCount -= entries.values[slot][index].size
                left.append(entries.values[slot][index].item)
                if fits, index == 0 {
                    entries.values[slot][0] = entry
                    placed = true
                } else {
                    entries.values[slot].remove(at: index)
                }
            }
            if fits, !placed { entries.values[slot].insert(entry, at: 0) }
            if entries.values[slot].isEmpty { entries.remove(at: slot) }
        } else if fits {
            entries[url] = [entry]
        }
        guard fits else { return left }
        byteCount += size
        if byteCount > capacity { left += evictToFit() }
        return left
    }

    /// Changes the item of `url` that `matches` finds; `false` when none does.
    mutating func update(_ url: String, where matches: (Item) -> Bool, _ change: (inout Item) -> Void) -> Bool {
        guard let index = entries[url]?.firstIndex(where: { matches($0.item) }) else { return false }
        change(&entries[url]![index].item)
        return true
    }

    /// Drops the item of `url` that `matches` finds, if any.
    mutating func remove(_ url: String, where matches: (Item) -> Bool) -> Item? {
        guard let index = entries[url]?.firstIndex(where: { matches($0.item) }) else { return nil }
        let removed = entries[url]!.remove(at: index)
        byteCount -= removed.size
        if entries[url]?.isEmpty == true { entries[url] = nil }
        return removed.item
    }

    /// Drops every variant of `url`; returns them.
    mutating func remove(_ url: String) -> [Item] {
        guard let variants = entries.removeValue(forKey: url) else { return [] }
        byteCount -= variants.reduce(0) { $0 + $1.size }
        return variants.map(\.item)
    }

    /// Drops every entry.
    mutating func removeAll() {
        entries = [:]
        byteCount = 0
    }

    /// Drops the least recently used entries until the rest fit the capacity; returns them. A
    /// scan of every entry per entry dropped: eviction runs only when a store overflows.
    private mutating func evictToFit() -> [Item] {
        var left: [Item] = []
        while byteCount > capacity {
            var oldest: (url: String, index: Int, lastUse: Int)?
            for (url, variants) in entries {
                for (index, entry) in variants.enumerated() where entry.lastUse < oldest?.lastUse ?? .max {
                    oldest = (url, index, entry.lastUse)
                }
            }
            guard let oldest, let removed = entries[oldest.url]?.remove(at: oldest.index) else { break }
            byteCount -= removed.size
            left.append(removed.item)
            if entries[oldest.url]?.isEmpty == true { entries[oldest.url] = nil }
        }
        return left
    }
}

extension CacheIndex: Sendable where Item: Sendable {}
extension CacheIndex.Entry: Sendable where Item: Sendable {}
