#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private HTTP cache (RFC 9111) for a client's responses: fewer bytes, fewer round trips, and
/// answers while the server cannot be reached. Off unless ``ConnectConfiguration/cache`` is set.
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.cache = ResponseCache(memoryCapacity: 20 << 20)
/// let connect = Connect(configuration: configuration)
/// ```
///
/// Responses to `GET` are stored as their `Cache-Control`, `Expires` and status allow; a fresh
/// one answers the next request without the network, a stale one is revalidated with its `ETag`
/// or `Last-Modified`, and every response says where it came from (``Response/cacheStatus``).
/// A request chooses how it uses the cache with a ``CachePolicy``. See <doc:Caching>.
///
/// One cache may serve several clients: share the instance.
public final class ResponseCache: Sendable {
    let store: any CacheStore
    /// Whether a stored response answers, however stale, when the server cannot be reached or
    /// answers with 500, 502, 503 or 504, beyond what the response's `stale-if-error` allows.
    /// Never past `must-revalidate` or `no-cache`. Off by default.
    public let servesStaleOnError: Bool
    /// Whole seconds since 1970: the time the cache reckons ages with.
    let clock: @Sendable () -> Int
    /// The stale responses being revalidated behind the answers they give.
    let backgroundRevalidations = BackgroundRevalidations()

    /// A cache in memory that holds at most `memoryCapacity` bytes of responses (bodies,
    /// headers and URLs), dropping the least recently used first.
    public convenience init(memoryCapacity: Int, servesStaleOnError: Bool = false) {
        self.init(store: MemoryCacheStore(capacity: memoryCapacity), servesStaleOnError: servesStaleOnError)
    }

    /// A cache in the files of `directory` (created if need be) that holds at most `capacity`
    /// bytes of them, dropping the least recently used first, and survives the process: what an
    /// app that works offline wants. The files' layout is in <doc:Caching>. Clients of one
    /// process that name the same directory share its store (and the capacity it was first
    /// opened with).
    ///
    /// - Throws: the file system's error when the directory cannot be created or read.
    public convenience init(directory: URL, capacity: Int, servesStaleOnError: Bool = false) throws {
        self.init(
            store: try DiskCacheStore.opening(directory, capacity: capacity), servesStaleOnError: servesStaleOnError)
    }

    /// A cache over `store`, with `clock` for the time (injected by tests).
    init(
        store: any CacheStore, servesStaleOnError: Bool = false,
        clock: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.store = store
        self.servesStaleOnError = servesStaleOnError
        self.clock = clock
    }

    /// The most bytes the stored responses take together.
    public var capacity: Int { store.capacity }
    /// The bytes the stored responses take now.
    public var byteCount: Int { store.byteCount }

    /// Drops every stored response.
    public func removeAll() {
        store.removeAll()
    }

    /// Returns once every response stored so far is in its file, and every one dropped is gone
    /// from the disk. A cache on disk writes on a queue of its own, so that no request waits for
    /// the disk: a command-line tool that exits right after a request calls this first, or the
    /// response is lost. A cache in memory returns at once.
    ///
    /// A response is stored before the future of its request completes, in either kind of cache:
    /// the next request that asks for it gets it, whether or not its file is written yet.
    public func flush() {
        store.flush()
    }

    /// Drops the stored responses for `url` (every variant).
    public func removeResponses(for url: URL) {
        store.remove(Self.key(for: url))
    }

    /// The key a URL's responses are stored under: the URL without its fragment, which never
    /// reaches the server.
    static func key(for url: URL) -> String {
        let string = url.absoluteString
        guard let hash = string.utf8.firstIndex(of: UInt8(ascii: "#")) else { return string }
        return String(string[..<hash])
    }
}
