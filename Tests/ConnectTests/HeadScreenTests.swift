import Testing

@testable import Connect
import ConnectWire

/// ``HeadScreen``: which head line pieces the write callback refuses before libcurl stores them,
/// and where the heads end and the body starts, as libcurl 7.88 reads them.
@Suite("Head screen")
struct HeadScreenTests {
    /// One row: the pieces libcurl hands the write callback in turn, the piece refused (its
    /// index), if any, and whether the screen is still open after the last piece.
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let pieces: [String]
        let refusedAt: Int?
        let openAfter: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "a head, then the body", pieces: ["HTTP/1.1 200 OK\r\n", "Content-Length: 2\r\n", "\r\n"],
            refusedAt: nil, openAfter: false),
        Row(
            name: "a folded first header line", pieces: ["HTTP/1.1 200 OK\r\n", " X: y\r\n"], refusedAt: 1,
            openAfter: true),
        Row(name: "folded with a tab", pieces: ["HTTP/1.1 200 OK\r\n", "\tX: y\r\n"], refusedAt: 1, openAfter: true),
        Row(
            name: "a folded later line is the head parser's",
            pieces: ["HTTP/1.1 200 OK\r\n", "X: y\r\n", " z\r\n", "\r\n"],
            refusedAt: nil, openAfter: false),
        Row(
            name: "a head that ends at a bare LF", pieces: ["HTTP/1.1 204 No Content\n", "\n"], refusedAt: nil,
            openAfter: false),
        Row(
            name: "a head that ends at a line starting with CR", pieces: ["HTTP/1.1 200 OK\r\n", "\rX\n"],
            refusedAt: nil, openAfter: false),
        Row(
            name: "interim heads, then the final one",
            pieces: [
                "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 103 Early Hints\r\n", "Link: </a.css>\r\n", "\r\n",
                "HTTP/1.1 200 OK\r\n", "Content-Length: 2\r\n", "\r\n"
            ],
            refusedAt: nil, openAfter: false),
        Row(
            name: "still open after an interim head", pieces: ["HTTP/1.1 102 Processing\r\n", "\r\n"], refusedAt: nil,
            openAfter: true),
        Row(
            name: "a folded first line after an interim head",
            pieces: ["HTTP/1.1 103 Early Hints\r\n", "Link: </a.css>\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", " X: y\r\n"],
            refusedAt: 4, openAfter: true),
        Row(
            name: "101 ends the heads of a transfer that asked for no upgrade",
            pieces: ["HTTP/1.1 101 Switching Protocols\r\n", "Upgrade: x\r\n", "\r\n"], refusedAt: nil, openAfter: false
        ),
        Row(
            name: "an HTTP/2 head as libcurl writes it",
            pieces: ["HTTP/2 200 \r\n", "content-type: text/plain\r\n", "\r\n"],
            refusedAt: nil, openAfter: false),
        Row(
            name: "an HTTP/2 interim head", pieces: ["HTTP/2 103 \r\n", "link: </a>\r\n", "\r\n"], refusedAt: nil,
            openAfter: true),
        Row(
            name: "a long line in pieces: a space inside it is no fold",
            pieces: ["HTTP/1.1 200 OK\r\n", "X-Long: aaaa", " bbbb", "\tcccc\r\n", "\r\n"], refusedAt: nil,
            openAfter: false),
        Row(
            name: "a long first line in pieces, then a fold on the next",
            pieces: ["HTTP/1.1 200 OK\r\n", "X: a", "b\r\n", " c\r\n", "\r\n"],
            refusedAt: nil, openAfter: false),
        Row(
            name: "a long status line in pieces",
            pieces: ["HTTP/1.1 103 Ea", "rly Hints\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "\r\n"],
            refusedAt: nil, openAfter: false),
        Row(
            name: "a head's first line is its status line, even blank", pieces: ["\r\n", " X: y\r\n"], refusedAt: 1,
            openAfter: true),
        Row(
            name: "an empty piece changes nothing", pieces: ["HTTP/1.1 200 OK\r\n", "", " X: y\r\n"], refusedAt: 2,
            openAfter: true)
    ]

    @Test(arguments: rows)
    func piecesAreTakenOrRefused(_ row: Row) {
        var screen = HeadScreen(enabled: true)
        var refused: Int?
        for (index, piece) in row.pieces.enumerated() {
            #expect(screen.isOpen, "before piece \(index)")
            let problem = Array(piece.utf8).withUnsafeBytes { screen.take($0) }
            if let problem {
                #expect(problem == .continuationBeforeAnyField)
                refused = index
                break
            }
        }
        #expect(refused == row.refusedAt)
        #expect(screen.isOpen == row.openAfter)
    }

    @Test func aScreenNotEnabledIsNeverOpenAndAnEnabledOneOpensAgainWhenTheTransferStartsOver() {
        var off = HeadScreen(enabled: false)
        #expect(!off.isOpen)
        off.startsOver()
        #expect(!off.isOpen)
        var on = HeadScreen(enabled: true)
        for piece in ["HTTP/1.1 200 OK\r\n", "\r\n"] { _ = Array(piece.utf8).withUnsafeBytes { on.take($0) } }
        #expect(!on.isOpen)
        on.startsOver()
        #expect(on.isOpen && on == HeadScreen(enabled: true))
        // From the first line again: a fold on the second line is refused.
        _ = Array("HTTP/1.1 200 OK\r\n".utf8).withUnsafeBytes { on.take($0) }
        #expect(Array(" X: y\r\n".utf8).withUnsafeBytes { on.take($0) } == .continuationBeforeAnyField)
    }

    @Test(arguments: [
        ("HTTP/1.1 100 Continue\r\n", true), ("HTTP/1.1 101 Switching Protocols\r\n", false),
        ("HTTP/1.1 102 Processing\r\n", true), ("HTTP/1.1 103 Early Hints\r\n", true), ("HTTP/1.1 199 x\r\n", true),
        ("HTTP/1.1 200 OK\r\n", false), ("HTTP/1.1 404 Not Found\r\n", false), ("HTTP/2 103 \r\n", true),
        ("HTTP/2 200 \r\n", false), ("HTTP/1.0  100 Two spaces\r\n", true), ("HTTP/1.1 1x0 x\r\n", false),
        ("HTTP/1.1 10", false), ("HTTP/1.1", false), ("", false)
    ])
    func interimStatusesAreThoseLibcurlReadsAnotherHeadAfter(_ line: String, _ interim: Bool) {
        var status = HeadScreen.StatusCode()
        Array(line.utf8).withUnsafeBytes { status.read($0) }
        #expect(status.isInterim == interim)
    }
}
