import CZlib
import ConnectFutures
import Foundation
import Testing
import SharedTestSupport

@testable import Connect
@testable import ConnectWire

/// Request bodies compressed on request, without a socket: every coding round-trips through
/// Connect's own response decoders, whole and fed in pieces.
@Suite("Body compression")
struct BodyCompressionTests {
    /// Text that compresses well, and bytes that do not.
    static let inputs: [(String, Data)] = [
        ("empty", Data()),
        ("short", Data("hello".utf8)),
        ("text", Data((0..<8_000).map { "line \($0) of a body that compresses well\n" }.joined().utf8)),
        (
            "noise",
            {
                var generator = SeededGenerator(state: 7)
                return Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }()
        )
    ]

    /// `data` compressed in pieces of `piece` bytes, then finished.
    static func compress(_ data: Data, _ compression: BodyCompression, piece: Int) throws -> Data {
        let compressor = try compression.makeCompressor()
        var output = Data()
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + piece)
            output += try compressor.compressChunk(data[offset..<end], finishing: false)
            offset = end
        }
        return output + (try compressor.compressChunk(Data(), finishing: true))
    }

    static func decoded(_ data: Data, _ compression: BodyCompression) throws -> Data {
        let coding = try #require(ContentDecoder.Coding(headerValue: compression.name))
        let decoder = try ContentDecoder(coding: coding)
        var output = Data()
        let delivered = try data.withUnsafeBytes { input in
            try decoder.decode(input) { decoded in
                output.append(contentsOf: decoded.bindMemory(to: UInt8.self))
                return true
            }
        }
        #expect(delivered && decoder.isComplete, "\(compression) stream ended")
        return output
    }

    @Test(arguments: BodyCompression.allCases, [1_000, 65_536, Int.max])
    func roundTrips(compression: BodyCompression, piece: Int) throws {
        for (name, input) in Self.inputs {
            let compressed = try Self.compress(input, compression, piece: piece)
            #expect(try Self.decoded(compressed, compression) == input, "\(name)")
            if name == "text" { #expect(compressed.count * 10 < input.count, "\(name): \(compressed.count)") }
        }
    }

    @Test(arguments: BodyCompression.allCases)
    func aDataBodyIsCompressedAtOnce(compression: BodyCompression) throws {
        let original = Self.inputs[2].1
        let body = try RequestBody.data(original, contentType: "text/plain").compressed(compression)
        #expect(body.contentEncoding == compression.name)
        #expect(body.contentType == "text/plain")
        let data = try #require(body.data)
        #expect(body.count == data.count && data.count < original.count)
        #expect(try Self.decoded(data, compression) == original)
    }

    @Test func codingsAppliedInTurnAreListedInOrder() throws {
        let original = Self.inputs[2].1
        let body = try RequestBody.json(["a": "b"]).compressed(.gzip).compressed(.brotli)
        #expect(body.contentEncoding == "gzip, br")
        #expect(body.contentType == "application/json")
        let twice = try RequestBody.data(original).compressed(.zstd).compressed(.deflate)
        #expect(try Self.decoded(Self.decoded(#require(twice.data), .deflate), .zstd) == original)
    }

    @Test func aMultipartBodyIsRefused() {
        #expect(throws: ConnectError.self) {
            try RequestBody.multipart([.field("a", "b")]).compressed(.gzip)
        }
    }

    @Test func theBodysHeadersAreAddedUnlessTheRequestHasItsOwn() throws {
        let body = try RequestBody.data(Data("x".utf8), contentType: "text/plain").compressed(.gzip)
        var headers: [HTTPHeader] = []
        headers.addBodyHeaders(of: body)
        #expect(headers.value(for: "Content-Encoding") == "gzip")
        var own: [HTTPHeader] = [HTTPHeader(name: "content-encoding", value: "x-custom")]
        own.addBodyHeaders(of: body)
        #expect(own.filter { $0.hasName("Content-Encoding") }.map(\.value) == ["x-custom"])
    }
}

/// What hypercorn's echo app made of a compressed body, decoded by Python's own decoders.
struct DecodedEcho: Decodable {
    var contentEncoding: String
    var chunked: Bool
    var decodedLength: Int?
    var decodedCRC32: UInt?
    var error: String?

    enum CodingKeys: String, CodingKey {
        case contentEncoding = "content_encoding", chunked, decodedLength = "decoded_length"
        case decodedCRC32 = "decoded_crc32", error
    }
}

/// Compressed bodies against hypercorn, whose app decodes them with Python's zlib, brotli and
/// zstandard: data, JSON, files and streams, over HTTP/1.1.
@Suite(
    "Body compression against hypercorn", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: HypercornServer.isInstalled || ProcessInfo.processInfo.environment["CI"] != nil))
struct BodyCompressionPeerTests {
    static let text = BodyCompressionTests.inputs[2].1

    static func crc32(_ data: Data) -> UInt {
        data.withUnsafeBytes { UInt(CZlib.crc32(0, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count))) }
    }

    /// A POST of `body` to the echo app's /decode, and what it decoded.
    static func send(_ body: RequestBody, to server: HypercornServer) async throws -> DecodedEcho {
        let request = Request(method: .post, url: server.url.appendingPathComponent("decode"), body: body)
        let response = try await sharedConnect.send(request).value
        return try JSONDecoder().decode(DecodedEcho.self, from: response.body)
    }

    static func expectDecoded(_ echo: DecodedEcho, _ original: Data, _ encoding: String, chunked: Bool) {
        #expect(echo.error == nil, "\(echo.error ?? "")")
        #expect(echo.contentEncoding == encoding)
        #expect(echo.chunked == chunked)
        #expect(echo.decodedLength == original.count)
        #expect(echo.decodedCRC32 == crc32(original))
    }

    @Test func dataAndJSONBodies() async throws {
        let server = try await HypercornServer(tls: false)
        defer { server.shutdown() }
        for compression in BodyCompression.allCases {
            let echo = try await Self.send(RequestBody.data(Self.text).compressed(compression), to: server)
            Self.expectDecoded(echo, Self.text, compression.name, chunked: false)
        }
        let json = try RequestBody.json(["title": String(repeating: "compress me ", count: 500)])
        let echo = try await Self.send(json.compressed(.gzip).compressed(.zstd), to: server)
        Self.expectDecoded(echo, try #require(json.data), "gzip, zstd", chunked: false)
    }

    @Test(arguments: BodyCompression.allCases)
    func streamedAndFileBodies(compression: BodyCompression) async throws {
        let server = try await HypercornServer(tls: false)
        defer { server.shutdown() }
        // 200 chunks of 5,000 bytes: the compressor sees many pieces, some producing nothing.
        let chunks = stride(from: 0, to: Self.text.count, by: 5_000).map {
            Self.text[$0..<min($0 + 5_000, Self.text.count)]
        }
        let oneTime = RequestBody.stream(chunks.async, count: Self.text.count)
        Self.expectDecoded(
            try await Self.send(oneTime.compressed(compression), to: server), Self.text, compression.name, chunked: true
        )
        let replayable = RequestBody.stream(replayable: { chunks.async })
        Self.expectDecoded(
            try await Self.send(replayable.compressed(compression), to: server), Self.text, compression.name,
            chunked: true)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "connect-compress-\(UUID().uuidString)")
        try Self.text.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        Self.expectDecoded(
            try await Self.send(RequestBody.file(file).compressed(compression), to: server), Self.text,
            compression.name, chunked: true)
    }

    struct CompressedTodo: Connector {
        var baseURL: URL
        var endpoint = "/decode/todos"
        var method: HTTPMethod = .post
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)?
        var bodyCompression: BodyCompression? = .brotli
    }

    @Test func aConnectorCompressesItsBody() async throws {
        let server = try await HypercornServer(tls: false)
        defer { server.shutdown() }
        let todo = Todo(userId: 1, id: 1, title: String(repeating: "write the tests ", count: 100), completed: false)
        let connector = CompressedTodo(baseURL: server.url, parameters: Parameter.jsonObject(value: todo))
        let echo = try await sharedConnect.request(connector).decoded(toType: DecodedEcho.self).value
        Self.expectDecoded(echo, try #require(RequestBody.json(todo).data), "br", chunked: false)
    }
}

extension Array where Element: Sendable {
    /// The elements as an `AsyncSequence`, for streamed bodies in tests.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
