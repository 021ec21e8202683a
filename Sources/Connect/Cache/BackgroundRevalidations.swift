import ConnectFutures

/// The stored responses a cache is revalidating in the background, for RFC 5861's
/// `stale-while-revalidate`: one revalidation at a time for each, however many requests the
/// stale response answers meanwhile. Without it every such answer sent a revalidation of its
/// own, so a burst of requests for one stale response was a burst at the server.
///
/// A stored response is named by its URL, the request fields its `Vary` names, and the times of
/// the exchange that got it: the same for every copy a store hands out (a disk store reads a
/// new instance each time), and new once a revalidation refreshes it.
final class BackgroundRevalidations: Sendable {
    /// One stored response, as revalidations in flight are told apart.
    struct Key: Hashable, Sendable {
        let url: String
        let varyingRequestHeaders: [HTTPHeader]
        let requestTime: Int
        let responseTime: Int

        init(_ stored: CachedResponse) {
            url = stored.url
            varyingRequestHeaders = stored.varyingRequestHeaders
            requestTime = stored.requestTime
            responseTime = stored.responseTime
        }
    }

    private let inFlight = Locked<Set<Key>>([])

    /// The key of a revalidation of `stored` to start, or `nil` when one is in flight already.
    /// The caller ends the one it starts with ``end(_:)``, whatever its outcome.
    func start(_ stored: CachedResponse) -> Key? {
        let key = Key(stored)
        return inFlight.withLock { $0.insert(key).inserted } ? key : nil
    }

    /// The revalidation named by `key` is over: the next stale answer may start another.
    func end(_ key: Key) {
        _ = inFlight.withLock { $0.remove(key) }
    }

    /// How many revalidations are in flight (for the tests).
    var count: Int { inFlight.withLock { $0.count } }
}
