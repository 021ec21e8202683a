import Testing

@testable import Connect

/// What a method's spelling says about it: whether it may be repeated (RFC 9110 §9.2.2) and
/// whether it is a token that may go on the wire (RFC 9110 §5.6.2), however the method was made.
@Suite("HTTP methods")
struct HTTPMethodTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let method: HTTPMethod
        let isIdempotent: Bool
        let isValidToken: Bool
        var testDescription: String { "\"\(method.rawValue)\"" }
    }

    static let rows: [Row] = [
        Row(method: .get, isIdempotent: true, isValidToken: true),
        Row(method: .head, isIdempotent: true, isValidToken: true),
        Row(method: .put, isIdempotent: true, isValidToken: true),
        Row(method: .delete, isIdempotent: true, isValidToken: true),
        Row(method: .options, isIdempotent: true, isValidToken: true),
        Row(method: .trace, isIdempotent: true, isValidToken: true),
        Row(method: .post, isIdempotent: false, isValidToken: true),
        Row(method: .patch, isIdempotent: false, isValidToken: true),
        // The same spellings made at run time, and by a literal.
        Row(method: HTTPMethod(rawValue: String("GE") + "T"), isIdempotent: true, isValidToken: true),
        Row(method: "DELETE", isIdempotent: true, isValidToken: true),
        Row(method: "POST", isIdempotent: false, isValidToken: true),
        // Methods are case-sensitive: a lowercase spelling is another method, not known to repeat safely.
        Row(method: "get", isIdempotent: false, isValidToken: true),
        Row(method: "PROPFIND", isIdempotent: false, isValidToken: true),
        Row(method: "M-SEARCH", isIdempotent: false, isValidToken: true),
        Row(method: "GE T", isIdempotent: false, isValidToken: false),
        Row(method: "GET\r\n", isIdempotent: false, isValidToken: false),
        Row(method: "GÉT", isIdempotent: false, isValidToken: false),
        Row(method: "", isIdempotent: false, isValidToken: false)
    ]

    @Test(arguments: rows)
    func traitsFollowTheSpelling(_ row: Row) {
        #expect(row.method.isIdempotent == row.isIdempotent)
        #expect(row.method.isValidToken == row.isValidToken)
    }

    @Test func methodsWithTheSameSpellingAreEqualAndHashAlike() {
        let built = HTTPMethod(rawValue: String("PO") + "ST")
        #expect(built == .post)
        #expect(built.hashValue == HTTPMethod.post.hashValue)
        #expect(Set<HTTPMethod>([.get, "GET", HTTPMethod(rawValue: "GET"), .post]).count == 2)
        #expect(HTTPMethod.get != "get")
    }
}
