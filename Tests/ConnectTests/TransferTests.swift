import ConnectFutures
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// Every byte value, several times over.
let allBytes = Data((0..<(256 * 40)).map { UInt8($0 % 256) })

func temporaryFile(_ data: Data, name: String = UUID().uuidString) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("connect-test-\(name)")
    try data.write(to: url)
    return url
}

struct UploadConnector: Connector {
    let baseURL: URL
    var endpoint: String = "/users/{id}/files"
    var method: HTTPMethod = .post
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? = CompositeParameters(
        .path(key: "id", value: "7"), .query(key: "album", value: "Holidays 2026"))
}

@Suite("Transfers", .timeLimit(.minutes(3)))
struct TransferTests {
    @Test func multipartWithSeveralFilesAndFieldsArrivesByteForByte() async throws {
        let server = try TestServer { _ in .text("stored") }
        defer { server.shutdown() }
        let onDisk = cyclicBytes(300_000, times: 7, modulo: 256)
        let fileURL = try temporaryFile(onDisk)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        let files = [
            File(name: "bytes.bin", key: "first", mimeType: .octetStream, data: allBytes),
            File(
                name: "photo.png", key: "second", mimeType: .png,
                data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00])),
            File(name: "from-disk.dat", key: "third", mimeType: "application/x-custom", fileURL: fileURL)
        ]
        let body = try await sharedConnect.upload(files: files, to: UploadConnector(baseURL: server.baseURL)).value
        #expect(String(decoding: body, as: UTF8.self) == "stored")

        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.uri == "/users/7/files")
        let parts = try #require(parseMultipart(received.body, contentType: received.header("Content-Type")))
        #expect(received.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(parts.map(\.name) == ["album", "first", "second", "third"])
        #expect(parts[0].body == Data("Holidays 2026".utf8) && parts[0].filename == nil)
        #expect(parts[1].body == allBytes)
        #expect(parts[1].filename == "bytes.bin" && parts[1].headers["content-type"] == "application/octet-stream")
        #expect(parts[2].headers["content-type"] == "image/png" && parts[2].body.count == 9)
        #expect(parts[3].body == onDisk)
        #expect(parts[3].filename == "from-disk.dat" && parts[3].headers["content-type"] == "application/x-custom")
    }

    @Test func aJSONObjectBecomesAJSONPart() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        struct Meta: Codable, Equatable { let caption: String }
        let connector = TestConnector(
            server, "/upload", method: .put, parameters: Parameter.jsonObject(value: Meta(caption: "Sunset")))
        _ = try await sharedConnect.upload(
            files: [File(name: "a.txt", key: "file", mimeType: .plainText, data: Data("A".utf8))], to: connector
        ).value
        let received = try #require(server.requests.first)
        #expect(received.method == "PUT")
        let parts = try #require(parseMultipart(received.body, contentType: received.header("Content-Type")))
        #expect(parts.map(\.name) == ["json", "file"])
        #expect(parts[0].headers["content-type"] == "application/json")
        #expect(try JSONDecoder().decode(Meta.self, from: parts[0].body) == Meta(caption: "Sunset"))
    }

    @Test func namesWithQuotesNonASCIIAndLineBreaksAreEscaped() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let file = File(
            name: "ré\"sumé\r\nX-Injected: 1.txt", key: "fi\"eld\r\n", mimeType: .plainText, data: Data("cv".utf8))
        _ = try await sharedConnect.upload(files: [file], to: TestConnector(server, "/cv", method: .post)).value
        let received = try #require(server.requests.first)
        let parts = try #require(parseMultipart(received.body, contentType: received.header("Content-Type")))
        #expect(parts.count == 1)
        #expect(parts[0].headers["x-injected"] == nil)
        #expect(parts[0].name == "fi%22eld%0D%0A")
        #expect(parts[0].filename == "ré%22sumé%0D%0AX-Injected: 1.txt")
        #expect(parts[0].body == Data("cv".utf8))
    }

    @Test func unsendablePartsFailBeforeSending() async throws {
        let server = try TestServer { _ in .text("ok") }
        defer { server.shutdown() }
        let nul = File(name: "a\0b", key: "file", mimeType: .plainText, data: Data())
        guard
            case .invalidRequest? = await connectError(
                sharedConnect.upload(files: [nul], to: TestConnector(server, "/", method: .post)))
        else {
            Issue.record("expected invalidRequest for NUL")
            return
        }
        let missing = File(
            name: "gone.bin", key: "file", mimeType: .octetStream,
            fileURL: URL(fileURLWithPath: "/nonexistent/gone.bin"))
        let error = await connectError(
            sharedConnect.upload(files: [missing], to: TestConnector(server, "/", method: .post)))
        #expect(error == .invalidRequest(#"the file "/nonexistent/gone.bin" cannot be read"#))
        #expect(server.requests.isEmpty)
    }

    @Test func aFileAsTheWholeBody() async throws {
        let server = try TestServer { request in .text("\(request.body.count)") }
        defer { server.shutdown() }
        let contents = cyclicBytes(1_000_000, times: 13)
        let fileURL = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        let body = try await sharedConnect.upload(
            fileAt: fileURL, contentType: "video/mp4", to: TestConnector(server, "/bucket/clip.mp4", method: .put)
        ).value
        #expect(String(decoding: body, as: UTF8.self) == "1000000")
        let received = try #require(server.requests.first)
        #expect(received.method == "PUT" && received.body == contents)
        #expect(received.header("Content-Type") == "video/mp4")
        #expect(received.header("Content-Length") == "1000000")
    }

    @Test func aFileBodyIsSentAgainOnARedirect() async throws {
        let server = try TestServer { request in
            request.uri == "/old"
                ? .redirect(to: "/new", status: 307) : .text("\(request.method) \(request.body.count)")
        }
        defer { server.shutdown() }
        let fileURL = try temporaryFile(allBytes)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        let body = try await sharedConnect.upload(fileAt: fileURL, to: TestConnector(server, "/old", method: .put))
            .value
        #expect(String(decoding: body, as: UTF8.self) == "PUT \(allBytes.count)")
        #expect(server.requests.last?.body == allBytes)
    }
}
