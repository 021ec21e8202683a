import Testing

@testable import Connect

/// RFC 3986 §5.2.4 for literal dot-segments; percent-encoded dots stay data on every libcurl.
@Suite("Dot segments")
struct DotSegmentsTests {
    @Test(arguments: [
        ("http://h/a/b/c", "http://h/a/b/c"),
        ("http://h/a/./b", "http://h/a/b"),
        ("http://h/a/../b", "http://h/b"),
        ("http://h/a/b/..", "http://h/a/"),
        ("http://h/a/b/.", "http://h/a/b/"),
        ("http://h/..", "http://h/"),
        ("http://h/../../a", "http://h/a"),
        ("http://h:8080/a/../b?x=/../y#/./z", "http://h:8080/b?x=/../y#/./z"),
        ("http://h/a//b/../c", "http://h/a//c"),
        // Not dot-segments: encoded dots, dots inside a name, three dots.
        ("http://h/files/%2E/meta", "http://h/files/%2E/meta"),
        ("http://h/files/%2E%2E/meta", "http://h/files/%2E%2E/meta"),
        ("http://h/.hidden/a..b/...", "http://h/.hidden/a..b/..."),
        ("http://h", "http://h"),
        ("http://h?q=/./", "http://h?q=/./"),
        ("http://user@h/x/./y", "http://user@h/x/y")
    ])
    func removing(_ url: String, _ expected: String) {
        #expect(DotSegments.removing(fromURL: url) == expected)
    }
}
