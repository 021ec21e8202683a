import Foundation
import Testing

@testable import Connect

/// The resume and stream flow-control decisions, without a socket.
@Suite("Resume and flow-control decisions")
struct ResumeAndFlowDecisionTests {
    static let noRange = "the server answered 206 without a Content-Range that says which part it sent"

    @Test(arguments: [
        (206, "bytes 100-199/200" as String?, Int64(100), ResumeDecision.append),
        (206, "bytes 100-199/*", 100, .append),
        (206, "bytes  100-199/200", 100, .append),
        (200, nil, 100, .startOver),  // the server ignored the range, or If-Range did not match
        (200, "bytes 100-199/200", 100, .startOver),
        (206, "bytes 0-199/200", 0, .startOver),  // nothing on disk: the whole file, as a part
        (206, "bytes 50-199/200", 100, .refuse("the server resumed at byte 50, not at 100 where the file ends")),
        (
            206, "bytes 100-149/200", 100,
            .refuse("the server sent bytes 100-149 of 200, not the rest of the file from byte 100")
        ),
        (
            206, "bytes 0-99/200", 0,
            .refuse("the server sent bytes 0-99 of 200, not the rest of the file from byte 0")
        ),
        (
            206, "bytes 10-199/*", 0,
            .refuse("the server answered a request for the whole file with bytes 10-199")
        ),
        (206, nil, 100, .refuse(noRange)),
        (206, "bytes */200", 100, .refuse(noRange)),
        (206, "items 100-199/200", 100, .refuse(noRange)),
        (206, "bytes 100-99/200", 100, .refuse(noRange)),
        (206, "bytes 100-199/199", 100, .refuse(noRange)),
        (206, "bytes -1-199/200", 100, .refuse(noRange))
    ])
    func resume(status: Int, contentRange: String?, onDisk: Int64, decision: ResumeDecision) {
        #expect(ResumeDecision(status: status, contentRange: contentRange, bytesOnDisk: onDisk) == decision)
    }

    /// A part is checked against the record of the partial file it continues: the same whole
    /// length, and the same entity tag when the validator was one.
    @Test(arguments: [
        (ResumeRecord(validator: "\"a\"", completeLength: 200), "\"a\"" as String?, ResumeDecision.append),
        (ResumeRecord(validator: "\"a\"", completeLength: nil), nil, .append),
        (
            ResumeRecord(validator: "\"a\"", completeLength: 300), "\"a\"",
            .refuse("the server's file is 200 bytes long, the partial file's was 300")
        ),
        (
            ResumeRecord(validator: "\"a\"", completeLength: 200), "\"b\"",
            .refuse("the server resumed version \"b\", the partial file is of \"a\"")
        ),
        // A date validator: the part's entity tag cannot be compared with it.
        (ResumeRecord(validator: "Tue, 03 Nov 2026 10:00:00 GMT", completeLength: 200), "\"b\"", .append)
    ])
    func resumeAgainstTheRecord(record: ResumeRecord, etag: String?, decision: ResumeDecision) {
        #expect(
            ResumeDecision(
                status: 206, contentRange: "bytes 100-199/200", bytesOnDisk: 100, record: record, etag: etag)
                == decision)
    }

    static let modified = "Tue, 03 Nov 2026 10:00:00 GMT"
    static let sameSecond = "Tue, 03 Nov 2026 10:00:00 GMT"
    static let aSecondLater = "Tue, 03 Nov 2026 10:00:01 GMT"

    /// What may go in `If-Range` (RFC 9110 §13.1.5, §8.8.2.2): a strong entity tag; a
    /// modification date only without an entity tag and at least a second before the response's
    /// Date; nothing for a body with a content coding, whose file holds other bytes than the
    /// server counts.
    @Test(arguments: [
        // (status, ETag, Last-Modified, Date, Content-Encoding, the validator)
        (200, "\"abc\"" as String?, modified as String?, aSecondLater as String?, nil as String?, "\"abc\"" as String?),
        (200, "W/\"abc\"", modified, aSecondLater, nil, nil),  // weak: not allowed, and no date either
        (200, "abc", modified, aSecondLater, nil, nil),  // not an entity tag
        (200, "\"a\"b\"", nil, nil, nil, nil),
        (200, "\"\"", nil, nil, nil, "\"\""),
        (200, nil, modified, aSecondLater, nil, modified),
        (200, nil, modified, sameSecond, nil, nil),  // could have changed twice in that second
        (200, nil, modified, nil, nil, nil),
        (200, nil, "yesterday", aSecondLater, nil, nil),
        (200, "\"abc\"", nil, nil, "gzip", nil),
        (200, "\"abc\"", nil, nil, "identity", "\"abc\""),
        (206, "\"abc\"", nil, nil, nil, "\"abc\""),
        (203, "\"abc\"", nil, nil, nil, nil),
        (200, nil, nil, nil, nil, nil)
    ])
    func validator(status: Int, etag: String?, lastModified: String?, date: String?, coding: String?, expected: String?)
    {
        let record = ResumeRecord(
            status: status, etag: etag, lastModified: lastModified, date: date, contentEncoding: coding,
            contentLength: "200", contentRange: "bytes 0-199/200")
        #expect(record?.validator == expected)
    }

    @Test func theRecordKeepsTheWholeLengthFromTheResponse() {
        let whole = ResumeRecord(
            status: 200, etag: "\"a\"", lastModified: nil, date: nil, contentEncoding: nil, contentLength: "1234",
            contentRange: nil)
        #expect(whole?.completeLength == 1234)
        let part = ResumeRecord(
            status: 206, etag: "\"a\"", lastModified: nil, date: nil, contentEncoding: nil, contentLength: "100",
            contentRange: "bytes 900-999/1000")
        #expect(part?.completeLength == 1000)
        let chunked = ResumeRecord(
            status: 200, etag: "\"a\"", lastModified: nil, date: nil, contentEncoding: nil, contentLength: nil,
            contentRange: nil)
        #expect(chunked?.completeLength == nil)
    }

    @Test(arguments: [
        ResumeRecord(validator: "\"5f8e-2b1c0\"", completeLength: 400_000),
        ResumeRecord(validator: modified, completeLength: nil),
        ResumeRecord(validator: "\"\"", completeLength: 0)
    ])
    func aRecordReadsBackAsWritten(record: ResumeRecord) {
        #expect(ResumeRecord(text: record.text) == record)
    }

    /// A file that is not a whole record is no record: the partial file beside it starts over.
    @Test(arguments: [
        "",
        "Connect resumable download 1\n",
        "Connect resumable download 1\nif-range: \"a\"",  // cut before its line ended
        "Connect resumable download 2\nif-range: \"a\"\n",
        "Connect resumable download 1\nif-range: \n",
        "Connect resumable download 1\nif-range: \"a\u{7}\"\n",
        "Connect resumable download 1\nif-range: \"a\"\nlength: -1\n",
        "Connect resumable download 1\nif-range: \"a\"\nlength: 12x\n",
        "Connect resumable download 1\nif-range: \"a\"\nlength: 1\nmore: 2\n",
        "Connect resumable download 1\nvalidator: \"a\"\n",
        "\u{0}\u{1}binary"
    ])
    func notARecord(text: String) {
        #expect(ResumeRecord(text: text) == nil)
    }

    @Test func theRecordIsAHiddenFileBesideTheDownload() {
        #expect(
            ResumeRecord.path(for: URL(fileURLWithPath: "/data/videos/episode 3.mp4"))
                == "/data/videos/.episode 3.mp4.connect-resume")
    }

    /// One step of a stream, and what flow control answers.
    enum Step: Sendable, CustomStringConvertible {
        case offer(Int, accepted: Bool)
        case offerToWaitingConsumer(Int)
        case take(Int, resumes: Bool)
        case consumerWaits(resumes: Bool)

        var description: String {
            switch self {
            case .offer(let count, let accepted): return "offer \(count) → \(accepted ? "taken" : "paused")"
            case .offerToWaitingConsumer(let count): return "offer \(count) to a waiting consumer"
            case .take(let count, let resumes): return "take \(count) → \(resumes ? "resume" : "stay")"
            case .consumerWaits(let resumes): return "consumer waits → \(resumes ? "resume" : "stay")"
            }
        }
    }

    @Test(arguments: [
        (
            "fills, pauses, resumes under half",
            [
                Step.offer(40, accepted: true), .offer(40, accepted: true), .offer(40, accepted: true),  // 120 ≥ 100
                .offer(10, accepted: false), .take(40, resumes: false), .take(40, resumes: true)  // 80, then 40 < 50
            ]
        ),
        (
            "a waiting consumer resumes a paused transfer",
            [
                .offer(100, accepted: true), .offer(1, accepted: false), .take(100, resumes: true),
                .consumerWaits(resumes: false)
            ]
        ),
        (
            "chunks handed straight on are not buffered",
            [
                .offerToWaitingConsumer(500), .offer(99, accepted: true), .offer(1, accepted: true),
                .offer(1, accepted: false)
            ]
        ),
        (
            "no resume without a pause",
            [
                .offer(10, accepted: true), .take(10, resumes: false), .consumerWaits(resumes: false)
            ]
        ),
        (
            "resumes once",
            [
                .offer(100, accepted: true), .offer(1, accepted: false), .consumerWaits(resumes: true),
                .consumerWaits(resumes: false)
            ]
        )
    ])
    func flowControl(name: String, steps: [Step]) {
        var flow = FlowControl(limit: 100)
        for (index, step) in steps.enumerated() {
            let (answer, expected): (Bool, Bool)
            switch step {
            case .offer(let count, let accepted): (answer, expected) = (flow.offer(count, buffering: true), accepted)
            case .offerToWaitingConsumer(let count): (answer, expected) = (flow.offer(count, buffering: false), true)
            case .take(let count, let resumes): (answer, expected) = (flow.took(count), resumes)
            case .consumerWaits(let resumes): (answer, expected) = (flow.consumerWaits(), resumes)
            }
            #expect(answer == expected, "\(name), step \(index): \(step)")
        }
        #expect(flow.peak <= 100 + 40)
    }
}
