import Testing

@testable import Connect

/// What a resumable download adds to its request, by whether a partial file is there to continue
/// and whether the request names its own encoding; and the offset its progress reports add.
@Suite("Resume request")
struct ResumeRequestTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let requestNamesEncoding: Bool
        let partialFile: (offset: Int64, validator: String)?
        let headers: [String]
        let range: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "nothing on disk", requestNamesEncoding: false, partialFile: nil,
            headers: ["Accept-Encoding: identity"], range: nil),
        Row(
            name: "nothing on disk, an encoding of the request's own", requestNamesEncoding: true,
            partialFile: nil, headers: [], range: nil),
        Row(
            name: "a partial file", requestNamesEncoding: false, partialFile: (1000, "\"v1\""),
            headers: ["Accept-Encoding: identity", "If-Range: \"v1\""], range: "1000-"),
        Row(
            name: "a partial file, an encoding of the request's own", requestNamesEncoding: true,
            partialFile: (1000, "Tue, 15 Nov 1994 08:12:31 GMT"),
            headers: ["If-Range: Tue, 15 Nov 1994 08:12:31 GMT"], range: "1000-"),
        Row(
            name: "a whole one-byte file asks for its byte again", requestNamesEncoding: false,
            partialFile: (0, "\"v1\""), headers: ["Accept-Encoding: identity", "If-Range: \"v1\""], range: "0-")
    ]

    @Test(arguments: rows)
    func theRequestAsksForTheRestWithItsValidator(_ row: Row) {
        let resume = ResumeRequest(requestNamesEncoding: row.requestNamesEncoding, partialFile: row.partialFile)
        #expect(resume.headers.map { "\($0.name): \($0.value)" } == row.headers)
        #expect(resume.range == row.range)
        #expect(resume.offset == (row.partialFile?.offset ?? 0))
    }

    @Test func progressCountsTheBytesOnDiskForTheRestOnly() {
        let resume = ResumeRequest(requestNamesEncoding: false, partialFile: (4096, "\"v1\""))
        #expect(resume.progressOffset(statusCode: 206) == 4096)
        #expect(resume.progressOffset(statusCode: 200) == 0)
        #expect(resume.progressOffset(statusCode: 412) == 0)
    }
}
