import Foundation
import FuzzSupport

@testable import Connect

/// What a resumed download reads: a response's `Content-Range` and `ETag`, and the record kept
/// beside the partial file. A range that parses is a real one (first ≤ last < length) and reads
/// back the same when written again; a record that parses reads back the same from its own text;
/// the decision for any head never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResume(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let range = ResumeDecision.range(text) {
        require(range.first >= 0 && range.first <= range.last, "\(text.debugDescription) read as \(range)")
        if let whole = range.completeLength { require(whole > range.last, "\(text.debugDescription) read as \(range)") }
        let written = "bytes \(range.first)-\(range.last)/\(range.completeLength.map(String.init) ?? "*")"
        let again = ResumeDecision.range(written)
        require(
            again?.first == range.first && again?.last == range.last && again?.completeLength == range.completeLength,
            "\(written) reads back as \(String(describing: again))")
    }
    if let record = ResumeRecord(text: text) {
        require(ResumeRecord(text: record.text) == record, "\(text.debugDescription) does not read back from its text")
    }
    let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let record = ResumeRecord(
        status: 206, etag: lines.first, lastModified: lines.count > 1 ? lines[1] : nil, date: lines.last,
        contentEncoding: nil, contentLength: nil, contentRange: lines.count > 1 ? lines[1] : nil)
    if let record {
        require(ResumeRecord(text: record.text) == record, "a record made from a head does not read back")
    }
    _ = ResumeDecision(
        status: 206, contentRange: lines.last, bytesOnDisk: Int64(count), record: record, etag: lines.first)
    return 0
}
