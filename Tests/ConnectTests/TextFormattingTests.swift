import Foundation
import Testing

@testable import Connect
@testable import ConnectWire

/// The small text helpers that stand in for Foundation's formatters, table by table.
@Suite("Text formatting")
struct TextFormattingTests {
    @Test(arguments: [
        (" \t gzip \t ", "gzip", "gzip"),
        ("gzip", "gzip", "gzip"),
        ("   ", "", ""),
        ("", "", ""),
        ("\n text \r\n", "\n text \r\n", "text"),
        ("\u{00A0}no-break\u{2003}", "\u{00A0}no-break\u{2003}", "no-break"),
        ("a b", "a b", "a b")
    ])
    func trimming(text: String, httpSpaces: String, whitespace: String) {
        #expect(text.trimmingHTTPSpaces == httpSpaces[...])
        #expect(text.trimmingWhitespace == whitespace[...])
    }

    @Test(arguments: [
        (Duration.zero, "0ms", "0.0"),
        (.microseconds(999), "0ms", "1.0"),
        (.microseconds(1_449), "1ms", "1.4"),
        (.microseconds(1_450), "1ms", "1.5"),
        (.milliseconds(250), "250ms", "250.0"),
        (.seconds(3), "3s", "3000.0"),
        (.milliseconds(2_500), "2s 500ms", "2500.0"),
        (.seconds(-1), "0ms", "0.0")
    ])
    func durations(duration: Duration, secondsAndMilliseconds: String, milliseconds: String) {
        #expect(duration.secondsAndMilliseconds == secondsAndMilliseconds)
        #expect(duration.millisecondsToOneDecimal == milliseconds)
    }

    /// A body's text in the charset its `Content-Type` names; `nil` where a byte is invalid there.
    @Test(
        arguments: [
            ("text/plain", [0x63, 0x61, 0x66, 0xC3, 0xA9], "café"),
            ("text/plain; charset=UTF-8", [0xFF], nil),
            ("text/plain; Charset=\"ISO-8859-1\"", [0x63, 0x61, 0x66, 0xE9], "café"),
            ("text/html; charset=windows-1252", [0x80, 0x20, 0x93, 0x71, 0x94, 0x20, 0xE9, 0x9F], "€ “q” éŸ"),
            ("text/html;charset=cp1252 ; q=1", [0x41, 0x80], "A€"),
            ("text/html; charset=windows-1252", [0x41, 0x81], nil),
            ("text/html; charset=windows-1252", [0x8D], nil),
            ("text/plain; charset=us-ascii", [0x41, 0xC0], nil),
            ("text/plain; charset=unknown", [0x41], "A")
        ] as [(String, [UInt8], String?)])
    func charsets(contentType: String, bytes: [UInt8], expected: String?) {
        let encoding = StringResponseDecoder.encoding(forContentType: contentType)
        #expect(StringResponseDecoder.text(Data(bytes), in: encoding) == expected)
    }
}
