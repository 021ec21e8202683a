import Foundation
import Testing

@testable import Connect

/// The in-memory store: variants side by side, replacement, least-recently-used eviction within
/// the capacity, invalidation, and many tasks at once.
@Suite("Memory cache store")
struct MemoryCacheStoreTests {
    static func response(
        _ url: String, body: Int = 100, vary: String? = nil, request: [(String, String)] = [], status: Int = 200
    ) -> CachedResponse {
        var headers = [HTTPHeader(name: "Cache-Control", value: "max-age=60")]
        if let vary { headers.append(HTTPHeader(name: "Vary", value: vary)) }
        return CachedResponse(
            url: url, status: status, headers: headers, body: Data(repeating: 7, count: body),
            requestHeaders: request.map { HTTPHeader(name: $0.0, value: $0.1) }, requestTime: 10, responseTime: 11)
    }

    @Test func aStoredResponseIsFoundByURL() throws {
        let store = MemoryCacheStore(capacity: 10_000)
        let stored = Self.response("https://a.example/x")
        store.store(stored)
        #expect(store.response(for: "https://a.example/x", requestHeaders: []) == stored)
        #expect(store.response(for: "https://a.example/y", requestHeaders: []) == nil)
        #expect(store.byteCount == stored.byteCount)
        // Only the fields Vary names are kept of the request.
        let varying = Self.response(
            "https://a.example/v", vary: "Accept", request: [("Accept", "a/b"), ("Authorization", "secret")])
        #expect(varying.varyingRequestHeaders == [HTTPHeader(name: "Accept", value: "a/b")])
    }

    @Test func variantsLiveSideBySideAndAStoreReplacesItsOwn() {
        let store = MemoryCacheStore(capacity: 10_000)
        let url = "https://a.example/list"
        let json = Self.response(url, body: 10, vary: "Accept", request: [("Accept", "application/json")])
        let xml = Self.response(url, body: 20, vary: "Accept", request: [("Accept", "application/xml")])
        store.store(json)
        store.store(xml)
        #expect(
            store.response(for: url, requestHeaders: [HTTPHeader(name: "accept", value: "application/json")]) == json)
        #expect(store.response(for: url, requestHeaders: [HTTPHeader(name: "Accept", value: "application/xml")]) == xml)
        #expect(store.response(for: url, requestHeaders: []) == nil)
        let newer = Self.response(url, body: 30, vary: "Accept", request: [("Accept", "application/json")])
        store.store(newer)
        #expect(
            store.response(for: url, requestHeaders: [HTTPHeader(name: "Accept", value: "application/json")]) == newer)
        #expect(store.byteCount == xml.byteCount + newer.byteCount)
        store.remove(url)
        #expect(store.response(for: url, requestHeaders: [HTTPHeader(name: "Accept", value: "application/xml")]) == nil)
        #expect(store.byteCount == 0)
    }

    @Test func theLeastRecentlyUsedGoFirstAndNothingPassesTheCapacity() {
        let size = Self.response("https://a.example/1").byteCount
        let store = MemoryCacheStore(capacity: size * 3)
        for index in 1...3 { store.store(Self.response("https://a.example/\(index)")) }
        // 1 is used, so 2 is now the least recently used.
        #expect(store.response(for: "https://a.example/1", requestHeaders: []) != nil)
        store.store(Self.response("https://a.example/4"))
        #expect(store.response(for: "https://a.example/2", requestHeaders: []) == nil)
        for index in [1, 3, 4] { #expect(store.response(for: "https://a.example/\(index)", requestHeaders: []) != nil) }
        #expect(store.byteCount <= store.capacity)
        // Larger than the whole capacity: not stored, and the outdated variant it replaces goes.
        store.store(Self.response("https://a.example/3", body: size * 4))
        #expect(store.response(for: "https://a.example/3", requestHeaders: []) == nil)
        #expect(store.byteCount == size * 2)
        store.removeAll()
        #expect(store.byteCount == 0 && store.response(for: "https://a.example/1", requestHeaders: []) == nil)
    }

    @Test func manyTasksStoreAndReadAtOnce() async {
        let store = MemoryCacheStore(capacity: 50 * Self.response("https://a.example/0").byteCount)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        let url = "https://a.example/\((task * 7 + index) % 80)"
                        if index % 3 == 0 {
                            store.store(Self.response(url))
                        } else if index % 11 == 0 {
                            store.remove(url)
                        } else {
                            _ = store.response(for: url, requestHeaders: [])
                        }
                    }
                }
            }
        }
        #expect(store.byteCount <= store.capacity && store.byteCount >= 0)
    }
}
