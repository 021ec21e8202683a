internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a resumable download keeps beside its partial file so that the next try asks for the
/// rest of the same version of the file, and of nothing else.
///
/// A `Range` request alone would splice: if the file changed on the server between two tries,
/// the server sends the new version's tail and the file on disk becomes half one version, half
/// the other. The next try therefore sends the validator recorded here in `If-Range` (RFC 9110
/// §13.1.5): the server answers 206 with the rest only when its current version still has that
/// validator, and 200 with the whole new version otherwise, which starts the file over.
///
/// The record is a small text file beside the download, `.<name>.connect-resume`:
///
/// ```
/// Connect resumable download 1
/// if-range: "5f8e-2b1c0"
/// length: 400000
/// ```
///
/// written before the first byte of the body and removed when the download completes. A partial
/// file without a record (one from elsewhere, or from a response with no usable validator) is not
/// continued: the next try downloads the whole file.
struct ResumeRecord: Equatable, Sendable {
    /// The `If-Range` value: a strong entity tag, or else a `Last-Modified` date that the
    /// response's `Date` shows to be strong.
    var validator: String
    /// The whole file's length, when the response said it; a resumed part for a file of another
    /// length is refused.
    var completeLength: Int64?

    /// The first line of every record; a file that does not start with it is not a record.
    static let signature = "Connect resumable download 1"

    /// The record for a download's response, or `nil` when a partial file of it could not be
    /// continued safely: no strong validator, or a content coding (the file holds decoded bytes,
    /// whose offsets are not the server's).
    init?(
        status: Int, etag: String?, lastModified: String?, date: String?, contentEncoding: String?,
        contentLength: String?, contentRange: String?
    ) {
        guard status == 200 || status == 206, contentEncoding.map({ $0.lowercased() == "identity" }) ?? true else {
            return nil
        }
        if let etag, Self.isStrongEntityTag(etag) {
            validator = etag
        } else if etag == nil, let lastModified, let date, let modified = HTTPDate.date(from: lastModified),
            let sent = HTTPDate.date(from: date), sent.timeIntervalSince(modified) >= 1
        {
            // RFC 9110 §8.8.2.2: a modification date is a strong validator for a client only
            // when the response was sent at least a second after it. An entity tag, even a weak
            // one, takes precedence: §13.1.5 allows a date only when there is no entity tag.
            validator = lastModified
        } else {
            return nil
        }
        completeLength =
            status == 206 ? ResumeDecision.range(contentRange)?.completeLength : contentLength.flatMap { Int64($0) }
    }

    init(validator: String, completeLength: Int64?) {
        self.validator = validator
        self.completeLength = completeLength
    }

    /// `"xyzzy"`, not `W/"xyzzy"`: a weak tag may not go in `If-Range`. The characters between
    /// the quotes are RFC 9110's `etagc` (visible ASCII but `"`, or bytes above 0x7F).
    static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return false
        }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// The record's text, as stored.
    var text: String {
        var text = "\(Self.signature)\nif-range: \(validator)\n"
        if let completeLength { text += "length: \(completeLength)\n" }
        return text
    }

    /// A stored record, or `nil` for a file that is not one (truncated, another program's, a
    /// validator with a line break or control character): such a partial file starts over.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == Self.signature, lines.last == "", lines[1].hasPrefix("if-range: ") else {
            return nil
        }
        let validator = String(lines[1].dropFirst("if-range: ".count))
        guard !validator.isEmpty, validator.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            return nil
        }
        switch lines.count {
        case 3:
            completeLength = nil
        case 4:
            guard lines[2].hasPrefix("length: "), let length = Int64(lines[2].dropFirst("length: ".count)),
                length >= 0
            else { return nil }
            completeLength = length
        default:
            return nil
        }
        self.validator = validator
    }

    /// Where the record of a download to `destination` is kept: beside it, hidden.
    static func path(for destination: URL) -> String {
        destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).connect-resume"
        )
        .path
    }
}
