import Foundation
import Testing

@testable import Connect

/// Which stored response a background revalidation is for, and one at a time for each.
@Suite("Background revalidations")
struct BackgroundRevalidationsTests {
    /// A background revalidation names its stored response by what every copy of it shares
    /// (a disk store reads a new instance for each lookup): one in flight at a time for each
    /// such response, another variant or a refreshed response being another.
    @Test func backgroundRevalidationsAreOnePerStoredResponse() {
        let revalidations = BackgroundRevalidations()
        let stored = MemoryCacheStoreTests.response("https://a.example/v", vary: "Accept", request: [("Accept", "a/b")])
        let copy = MemoryCacheStoreTests.response("https://a.example/v", vary: "Accept", request: [("Accept", "a/b")])
        let otherVariant = MemoryCacheStoreTests.response(
            "https://a.example/v", vary: "Accept", request: [("Accept", "c/d")])
        let refreshed = stored.refreshed(headers: stored.headers, requestTime: 20, responseTime: 21)
        let cases: [(CachedResponse, Bool, String)] = [
            (stored, true, "the first"),
            (copy, false, "a copy of it, as a disk store reads it"),
            (otherVariant, true, "another variant of the URL"),
            (refreshed, true, "the response as a revalidation refreshed it"),
            (MemoryCacheStoreTests.response("https://a.example/w"), true, "another URL")
        ]
        var started: [BackgroundRevalidations.Key] = []
        for (response, starts, name) in cases {
            let key = revalidations.start(response)
            #expect((key != nil) == starts, "\(name)")
            if let key { started.append(key) }
        }
        #expect(revalidations.count == 4)
        revalidations.end(started[0])
        #expect(revalidations.start(copy) != nil, "once the first is over")
        #expect(revalidations.count == 4)
    }
}
