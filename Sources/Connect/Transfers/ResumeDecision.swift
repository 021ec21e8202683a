#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a resumed download does with the file already on disk, once the response's status and
/// `Content-Range` are known.
enum ResumeDecision: Equatable {
    /// Append: the server sent the rest, starting where the file ends (206).
    case append
    /// Write the file anew: the server sent the whole body (it ignored the range), or there was
    /// nothing on disk to continue.
    case startOver
    /// Stop: the server sent a part that does not start where the file ends.
    case refuse(String)

    /// The decision for a response with `status` and `contentRange` to a request for the bytes
    /// from `bytesOnDisk` on.
    init(status: Int, contentRange: String?, bytesOnDisk: Int64) {
        guard status == 206, bytesOnDisk > 0 else {
            self = .startOver
            return
        }
        guard let start = Self.rangeStart(contentRange) else {
            self = .refuse("the server answered 206 without a Content-Range that says where its part starts")
            return
        }
        self =
            start == bytesOnDisk
            ? .append : .refuse("the server resumed at byte \(start), not at \(bytesOnDisk) where the file ends")
    }

    /// The first byte of `bytes <first>-<last>/<length>`.
    static func rangeStart(_ header: String?) -> Int64? {
        guard let header, let unit = header.firstRange(of: "bytes ") else { return nil }
        let rest = header[unit.upperBound...]
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return Int64(rest[..<dash].trimmingHTTPSpaces)
    }
}
