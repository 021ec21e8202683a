import Testing

@testable import ConnectWire

/// The one case rule for header names: A–Z and a–z are the same letter, and nothing else folds.
@Suite("Header text")
struct HeaderTextTests {
    @Test(arguments: [
        ("Content-Type", "content-type", true),
        ("ETAG", "etag", true),
        ("TE", "te", true),
        ("X-A", "X-B", false),
        ("Vary", "Var", false),
        // Setting the case bit on every byte would make these equal.
        ("^", "~", false),
        ("a\r", "A-", false),
        // Letters beyond ASCII are compared as they are.
        ("Ä", "ä", false),
        ("", "", true)
    ])
    func namesAreEqualIgnoringASCIICaseOnly(_ first: String, _ second: String, _ equal: Bool) {
        #expect(HeaderText.equalIgnoringASCIICase(first, second) == equal)
        #expect((HeaderText.foldedASCII(first) == HeaderText.foldedASCII(second)) == equal)
    }

    @Test(arguments: [
        ("Proxy-Authentication-Info", "proxy-authentication-info"),
        ("x-already-lower", "x-already-lower"),
        ("Äb-C", "Äb-c"),
        ("^~[]", "^~[]"),
        ("", "")
    ])
    func foldingLowersASCIILettersAlone(_ text: String, _ folded: String) {
        #expect(HeaderText.foldedASCII(text) == folded)
    }
}
