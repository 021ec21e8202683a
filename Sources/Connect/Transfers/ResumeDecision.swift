internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a download does with the file already on disk, once the response's status and
/// `Content-Range` are known.
enum ResumeDecision: Equatable {
    /// Append: the server sent the rest of the same version, starting where the file ends (206).
    case append
    /// Write the file anew: the server sent the whole body (it ignored the range, or the file
    /// changed and `If-Range` did not match), or there was nothing on disk to continue.
    case startOver
    /// Stop: the server sent a part that is not the rest of the file on disk.
    case refuse(String)

    /// The decision for a response with `status`, `contentRange` and `etag` to a request for the
    /// bytes from `bytesOnDisk` on, sent with the partial file's `record` (see ``ResumeRecord``).
    init(status: Int, contentRange: String?, bytesOnDisk: Int64, record: ResumeRecord? = nil, etag: String? = nil) {
        guard status == 206 else {
            self = .startOver
            return
        }
        guard let range = Self.range(contentRange) else {
            self = .refuse("the server answered 206 without a Content-Range that says which part it sent")
            return
        }
        if let whole = range.completeLength, range.last + 1 != whole {
            self = .refuse(
                "the server sent bytes \(range.first)-\(range.last) of \(whole), not the rest of the file from byte \(bytesOnDisk)"
            )
            return
        }
        guard range.first == bytesOnDisk else {
            self = .refuse(
                bytesOnDisk == 0
                    ? "the server answered a request for the whole file with bytes \(range.first)-\(range.last)"
                    : "the server resumed at byte \(range.first), not at \(bytesOnDisk) where the file ends")
            return
        }
        guard bytesOnDisk > 0 else {
            self = .startOver
            return
        }
        if let record {
            if let recorded = record.completeLength, let whole = range.completeLength, recorded != whole {
                self = .refuse("the server's file is \(whole) bytes long, the partial file's was \(recorded)")
                return
            }
            if record.validator.hasPrefix("\""), let etag, etag != record.validator {
                self = .refuse("the server resumed version \(etag), the partial file is of \(record.validator)")
                return
            }
        }
        self = .append
    }

    /// The first and last byte and the whole length of `bytes <first>-<last>/<length>`
    /// (`length` is `*` when the server does not know it).
    static func range(_ header: String?) -> (first: Int64, last: Int64, completeLength: Int64?)? {
        guard let header else { return nil }
        let text = header.trimmingHTTPSpaces
        guard text.hasPrefix("bytes "), let dash = text.firstIndex(of: "-"), let slash = text.firstIndex(of: "/"),
            dash < slash
        else { return nil }
        let start = text.index(text.startIndex, offsetBy: "bytes ".count)
        guard let first = Int64(text[start..<dash].trimmingHTTPSpaces),
            let last = Int64(text[text.index(after: dash)..<slash]), first >= 0, last >= first
        else { return nil }
        let length = text[text.index(after: slash)...]
        if length == "*" { return (first, last, nil) }
        guard let whole = Int64(length), whole > last else { return nil }
        return (first, last, whole)
    }
}
