import Testing

@testable import ConnectJSON

/// `WordScan`, the copy-and-check of JSON strings' bytes a word at a time, against a byte-by-byte
/// reading of the same bytes: every byte value at every position of strings of every length
/// through the short-block cases (1–3, 4–8, 9–16 bytes) and past them.
struct WordScanTests {
    /// What `WordScan` must find in `bytes`, read one byte at a time.
    static func expected(_ bytes: [UInt8]) -> (mayNeedEscape: Bool, isASCII: Bool) {
        let escapes = bytes.contains {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
        }
        return (escapes, bytes.allSatisfy { $0 < 0x80 })
    }

    /// Copies `bytes` with `WordScan` into a block filled with a marker; what went wrong (the
    /// copy, a byte written outside it, what the scan found), or `nil`.
    static func mistake(_ bytes: [UInt8]) -> String? {
        var block = [UInt8](repeating: 0xEE, count: bytes.count + 32)
        let scan = bytes.withUnsafeBytes { source in
            block.withUnsafeMutableBytes { destination in
                WordScan.copy(
                    bytes.count, from: source.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                    to: destination.baseAddress! + 16)
            }
        }
        if Array(block[16..<(16 + bytes.count)]) != bytes { return "copy of \(bytes)" }
        if !block[..<16].allSatisfy({ $0 == 0xEE }) || !block[(16 + bytes.count)...].allSatisfy({ $0 == 0xEE }) {
            return "written outside the copy of \(bytes)"
        }
        let want = expected(bytes)
        if scan.mayNeedEscape != want.mayNeedEscape { return "escape in \(bytes): found \(scan.mayNeedEscape)" }
        if scan.isASCII != want.isASCII { return "ASCII in \(bytes): found \(scan.isASCII)" }
        return nil
    }

    /// Printable ASCII that needs no escape, in a pattern that does not repeat with a word's width.
    static func plain(_ count: Int) -> [UInt8] {
        let letters = Array(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;!?#$%&'()*+-<=>@[]^_`{|}~".utf8)
        return (0..<count).map { letters[($0 * 7) % letters.count] }
    }

    @Test(arguments: Array(0...40))
    func everyByteAtEveryPosition(length: Int) {
        var mistakes = [Self.mistake(Self.plain(length))].compactMap { $0 }
        for position in 0..<length {
            for byte in 0...255 {
                var bytes = Self.plain(length)
                bytes[position] = UInt8(byte)
                if let mistake = Self.mistake(bytes) { mistakes.append(mistake) }
            }
        }
        #expect(mistakes.first == nil, "\(mistakes.count) mistakes")
    }

    /// Two marked bytes in one string: the test of one must not hide or invent the other's
    /// (a borrow from a lower byte reaching a higher one).
    @Test(arguments: [1, 3, 4, 7, 8, 9, 15, 16, 17, 24])
    func pairsOfMarkedBytes(length: Int) {
        let marks: [UInt8] = [
            0x00, 0x1F, 0x20, 0x21, 0x22, 0x2E, 0x2F, 0x30, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF
        ]
        var mistakes: [String] = []
        for first in 0..<length {
            for second in first..<length {
                for a in marks {
                    for b in marks {
                        var bytes = Self.plain(length)
                        bytes[first] = a
                        bytes[second] = b
                        if let mistake = Self.mistake(bytes) { mistakes.append(mistake) }
                    }
                }
            }
        }
        #expect(mistakes.first == nil, "\(mistakes.count) mistakes")
    }
}
