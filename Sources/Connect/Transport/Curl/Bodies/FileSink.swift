#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a downloaded body to disk as it arrives. Used by the transfer thread only.
///
/// A fresh download goes to a temporary file beside the destination and is renamed into place
/// when it completes, so a failed or cancelled download never leaves a partial file, nor
/// clobbers a file already there. A resumable download writes to the destination itself, with
/// a ``ResumeRecord`` beside it: the next try asks for the rest of the same version only
/// (`If-Range`), and a 206 whose `Content-Range` is the rest of the file is appended; a 200 (the
/// file changed, or the server ignored the range) starts the file over. After a failure the
/// partial file and its record stay, for the next try; a partial file without a record is
/// downloaded again whole.
final class FileSink {
    let destination: URL
    let resuming: Bool
    private(set) var resumed = false
    private(set) var error: ConnectError?
    private var descriptor: Int32 = -1
    private var writtenPath: String?
    /// The bytes of a partial file this download continues, and the record they were written under.
    private var bytesOnDisk: Int64 = 0
    private var record: ResumeRecord?

    init(destination: URL, resuming: Bool) {
        self.destination = destination
        self.resuming = resuming
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    static func sizeOfFile(at url: URL) -> Int64? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// For a resumable download with a partial file and its record: the offset to ask from and
    /// the validator to send in `If-Range`. `nil` when there is nothing that can be continued.
    ///
    /// A file already as long as the recorded whole (a try that failed after its last byte)
    /// asks for its last byte again: a range that starts at the end would be answered 416, and
    /// the 206 or 200 says whether the file on disk is still the server's version.
    func partialFileToContinue() -> (offset: Int64, validator: String)? {
        guard resuming, let size = Self.sizeOfFile(at: destination), size > 0,
            let text = try? String(contentsOfFile: ResumeRecord.path(for: destination), encoding: .utf8),
            let record = ResumeRecord(text: text)
        else { return nil }
        bytesOnDisk = record.completeLength == size ? size - 1 : size
        self.record = record
        return (bytesOnDisk, record.validator)
    }

    /// Whether the file is open: the first bytes of the body came, and the response's head was judged.
    var isOpen: Bool { descriptor >= 0 }

    /// Opens the file for the response a body's first bytes belong to, judging its head: append,
    /// start over or refuse. A resumable download that starts over records the response's
    /// validator before a byte of the body is written. `false` (with ``error`` set) stops the transfer.
    func open(status: Int, headers: RawHeaders) -> Bool {
        let contentRange = headers.value(for: "Content-Range")
        let etag = headers.value(for: "ETag")
        let decision = ResumeDecision(
            status: status, contentRange: contentRange, bytesOnDisk: bytesOnDisk, record: record, etag: etag)
        let path: String
        var flags = O_WRONLY | O_CREAT
        switch decision {
        case .refuse(let reason):
            // The server's answer is not the part that was asked for: a response fault, not the file's.
            return fail("\(reason) (\(destination.path))", kind: .malformedResponse)
        case .append:
            path = destination.path
            resumed = true
        case .startOver where resuming:
            path = destination.path
            flags |= O_TRUNC
            keepRecord(
                ResumeRecord(
                    status: status, etag: etag, lastModified: headers.value(for: "Last-Modified"),
                    date: headers.value(for: "Date"), contentEncoding: headers.value(for: "Content-Encoding"),
                    contentLength: headers.value(for: "Content-Length"), contentRange: contentRange))
        case .startOver:
            path = destination.path + ".connect-\(UInt32.random(in: .min ... .max)).part"
            flags |= O_TRUNC | O_EXCL
        }
        descriptor = systemOpen(path, flags, 0o644)
        guard descriptor >= 0 else {
            return fail("could not open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        writtenPath = path
        // The part starts at `bytesOnDisk`, which is the file's end or, for a file asked to
        // confirm its last byte, one byte before it.
        if resumed, ftruncate(descriptor, off_t(bytesOnDisk)) != 0 || lseek(descriptor, 0, SEEK_END) < 0 {
            return fail("could not continue \(path): \(String(cString: strerror(errno)))")
        }
        return true
    }

    /// Appends `bytes` to the open file; `false` (with ``error`` set) stops the transfer.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                return fail(
                    "could not write to \(writtenPath ?? destination.path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        return true
    }

    /// Ends the download: on success moves the file into place (an empty body still makes a
    /// file) and forgets a resumable download's record; otherwise removes a fresh download's
    /// file, and keeps a resumable one's with its record. Returns an error if the file could not
    /// be put in place.
    func finish(succeeded: Bool) -> ConnectError? {
        if succeeded, descriptor < 0, error == nil, !open(status: 200, headers: RawHeaders()) {
            return error
        }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        guard let writtenPath else { return nil }
        self.writtenPath = nil
        if resuming {
            if succeeded { unlink(ResumeRecord.path(for: destination)) }
            return nil
        }
        if succeeded {
            guard rename(writtenPath, destination.path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(writtenPath)
                return .transport(
                    TransportFailure(.localFile, "could not move the download to \(destination.path): \(reason)"))
            }
        } else {
            unlink(writtenPath)
        }
        return nil
    }

    /// Replaces the partial file's record with `record`, or removes it when the response cannot
    /// be continued safely. Written beside it and renamed into place, so that a record is never
    /// half written; one that cannot be written is removed, and the next try starts over.
    private func keepRecord(_ record: ResumeRecord?) {
        let path = ResumeRecord.path(for: destination)
        guard let record else {
            unlink(path)
            return
        }
        let temporary = path + ".\(UInt32.random(in: .min ... .max))"
        do {
            try Data(record.text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                unlink(path)
                return
            }
        } catch {
            unlink(path)
        }
    }

    private func fail(_ message: String, kind: TransportFailure.Kind = .localFile) -> Bool {
        error = .transport(TransportFailure(kind, message))
        return false
    }
}
