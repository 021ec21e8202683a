import CZlib
import Foundation
import Testing

@testable import ConnectWire

/// Body decoding without a socket: every coding, whole and cut off, fed at once and a byte at a time.
@Suite("Content decoding")
struct ContentDecoderTests {
    static let json = #"{"id": 7, "title": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx compressed", "completed": true}"#
    /// The same JSON in each coding (the brotli stream is one stored meta-block).
    static let encoded: [(ContentDecoder.Coding, String, String)] = [
        (.gzip, "H4sIAAAAAAACA6tWykxRslIw11FQKsksyUkFspWS83MLilKLi1NTFCqGCVDSgXgrJ7UkFeTfkqLS1FoAsXKfEfwAAAA=", ""),
        (.deflate, "eJyrVspMUbJSMNdRUCrJLMlJBbKVKogECsn5uQVFqcXFqSlKQP0gXk5qSSrIvJKi0tRaAEkgI2c=", json),
        (.zstd, "KLUv/QRopQEAEoMKEMDrJkuh0Wz5tDqFq0td5gTtCmXP+DxxgfEpHZ1iRJd7PsmRLgg94zALAgAxg1oJ7tTGN6s=", json),
        (
            .brotli,
            "sAUQeyJpZCI6IDcsICJ0aXRsZSI6ICJ4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4IGNvbXByZXNzZWQiLCAiY29tcGxldGVkIjogdHJ1ZX0D",
            json
        )
    ]

    /// Decodes `input` in pieces of `piece` bytes; the output, and whether the stream was whole.
    static func decode(
        _ coding: ContentDecoder.Coding, _ input: Data, piece: Int = .max
    ) throws(ContentDecoder.Failure) -> (Data, Bool) {
        let decoder = try ContentDecoder(coding: coding)
        var output = Data()
        var offset = 0
        while offset < input.count {
            let end = input.count - offset <= piece ? input.count : offset + piece
            let delivered = try feed(decoder, input[offset..<end]) {
                output.append(contentsOf: $0.bindMemory(to: UInt8.self))
                return true
            }
            #expect(delivered)
            offset = end
        }
        return (output, decoder.isComplete)
    }

    /// `bytes` to `decoder` from a buffer of their own, as the transport hands them over.
    static func feed(
        _ decoder: ContentDecoder, _ bytes: Data, deliver: (UnsafeRawBufferPointer) -> Bool
    ) throws(ContentDecoder.Failure) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        return try decoder.decode(UnsafeRawBufferPointer(buffer), deliver: deliver)
    }

    @Test(arguments: [1, 7, Int.max])
    func everyCodingDecodesWhole(piece: Int) throws {
        for (coding, base64, text) in Self.encoded {
            let (output, complete) = try Self.decode(coding, Data(base64Encoded: base64)!, piece: piece)
            let expected = text.isEmpty ? nil : Data(text.utf8)
            if let expected { #expect(output == expected, "\(coding)") }
            #expect(!output.isEmpty && complete, "\(coding)")
        }
    }

    @Test func everyCodingCutOffIsIncomplete() throws {
        for (coding, base64, _) in Self.encoded {
            let input = Data(base64Encoded: base64)!
            for length in [1, input.count / 2, input.count - 1] {
                do {
                    let (_, complete) = try Self.decode(coding, input.prefix(length))
                    #expect(!complete, "\(coding) cut at \(length)")
                } catch {
                    Issue.record("\(coding) cut at \(length) failed instead: \(error)")
                }
            }
        }
    }

    @Test func aDeflateBodyMayBeRaw() throws {
        let (output, complete) = try Self.decode(.deflate, Data(base64Encoded: "K0osV0hJTctJLElVSMpPqQQA")!)
        #expect(String(decoding: output, as: UTF8.self) == "raw deflate body" && complete)
    }

    @Test func gzipMembersFollowOneAnother() throws {
        let two = Data(base64Encoded: "H4sIAAAAAAACA0vLLCouUQAA/HrxHAYAAAAfiwgAAAAAAAIDK05Nzs9LAQBpER+2BgAAAA==")!
        for piece in [1, 5, Int.max] {
            let (output, complete) = try Self.decode(.gzip, two, piece: piece)
            #expect(String(decoding: output, as: UTF8.self) == "first second" && complete)
        }
    }

    @Test(arguments: ContentDecoder.Coding.allCases)
    func bytesThatAreNotTheCodingAreCorrupt(coding: ContentDecoder.Coding) {
        #expect(throws: ContentDecoder.Failure.self) {
            try Self.decode(coding, Data("this is plain text, not compressed at all".utf8))
        }
    }

    @Test func bytesAfterASingleStreamCodingAreCorrupt() {
        for (coding, base64, _) in Self.encoded where coding == .deflate || coding == .brotli {
            #expect(throws: ContentDecoder.Failure.self) {
                try Self.decode(coding, Data(base64Encoded: base64)! + Data("junk".utf8))
            }
        }
    }

    @Test func aLargeBodyComesOutInPiecesAndWhole() throws {
        let original = Data((0..<5000).map { "line \($0) of a body that compresses well\n" }.joined().utf8)
        var compressed = Data(count: Int(compressBound(uLong(original.count))))
        var length = uLongf(compressed.count)
        let status = compressed.withUnsafeMutableBytes { target in
            original.withUnsafeBytes { source in
                compress2(
                    target.baseAddress!.assumingMemoryBound(to: Bytef.self), &length,
                    source.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(original.count), 9)
            }
        }
        #expect(status == Z_OK)
        compressed.count = Int(length)
        for piece in [100, Int.max] {
            let (output, complete) = try Self.decode(.deflate, compressed, piece: piece)
            #expect(output == original && complete)
        }
    }

    @Test func aRefusingReceiverStopsTheDecoding() throws {
        let decoder = try ContentDecoder(coding: .zstd)
        let input = Data(base64Encoded: Self.encoded[2].1)!
        let delivered = try Self.feed(decoder, input) { _ in false }
        #expect(!delivered)
    }

    @Test func headerValuesNameTheCodings() {
        #expect(ContentDecoder.Coding(headerValue: "gzip") == .gzip)
        #expect(ContentDecoder.Coding(headerValue: " X-GZIP ") == .gzip)
        #expect(ContentDecoder.Coding(headerValue: "deflate") == .deflate)
        #expect(ContentDecoder.Coding(headerValue: "br") == .brotli)
        #expect(ContentDecoder.Coding(headerValue: "zstd") == .zstd)
        #expect(ContentDecoder.Coding(headerValue: "identity") == nil)
        #expect(ContentDecoder.Coding(headerValue: "compress") == nil)
        #expect(ContentDecoder.Coding(headerValue: "gzip, br") == nil)
    }
}
