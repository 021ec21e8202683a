/// Where a ``ResponseCache`` keeps its responses (``MemoryCacheStore``, ``DiskCacheStore``):
/// keyed by URL, a URL's variants side by side (RFC 9111 §4.1), bounded by a capacity in bytes.
/// Safe to use from any thread.
protocol CacheStore: Sendable {
    /// The most bytes the stored responses take together (``CachedResponse/byteCount``).
    var capacity: Int { get }
    /// The bytes the stored responses take now.
    var byteCount: Int { get }
    /// The stored response for `url` that answers a request with `requestHeaders`, if any; it
    /// counts as used.
    func response(for url: String, requestHeaders: [HTTPHeader]) -> CachedResponse?
    /// Stores `response` in place of the variant of its URL that answers the same request.
    func store(_ response: CachedResponse)
    /// Drops every stored variant of `url`.
    func remove(_ url: String)
    /// Drops every stored response.
    func removeAll()
    /// Returns once every response stored and dropped so far is written where the store keeps
    /// it (a store in memory has nothing to wait for).
    func flush()
}

extension CacheStore {
    func flush() {}
}
