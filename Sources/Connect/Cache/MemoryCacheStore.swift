import ConnectFutures

/// Stored responses in memory, bounded by a capacity in bytes (``CachedResponse/byteCount``):
/// the least recently used go first when a new one needs room, and one larger than the whole
/// capacity is not stored (see ``CacheIndex``). Safe to use from any thread: one lock around its
/// index.
final class MemoryCacheStore: CacheStore {
    let capacity: Int
    private let index: Locked<CacheIndex<CachedResponse>>

    init(capacity: Int) {
        self.capacity = capacity
        index = Locked(CacheIndex(capacity: capacity))
    }

    var byteCount: Int { index.withLock { $0.byteCount } }

    func response(for url: String, requestHeaders: [HTTPHeader]) -> CachedResponse? {
        index.withLock { $0.use(url, requestHeaders: requestHeaders) }
    }

    func store(_ response: CachedResponse) {
        _ = index.withLock {
            $0.insert(
                response, for: response.url, vary: response.vary,
                varyingRequestHeaders: response.varyingRequestHeaders, size: response.byteCount)
        }
    }

    func remove(_ url: String) {
        _ = index.withLock { $0.remove(url) }
    }

    func removeAll() {
        index.withLock { $0.removeAll() }
    }
}
