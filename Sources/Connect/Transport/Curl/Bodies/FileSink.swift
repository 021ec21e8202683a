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
/// clobbers a file already there. A resumable download writes to the destination itself: a 206
/// whose `Content-Range` starts where the file ends is appended; any other success (the server
/// ignored the Range) starts the file over. After a failure its partial file stays, for the next
/// try.
final class FileSink {
    let destination: URL
    let resuming: Bool
    private(set) var resumed = false
    private(set) var error: ConnectError?
    private var descriptor: Int32 = -1
    private var writtenPath: String?

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

    /// Appends `bytes`; `false` (with ``error`` set) stops the transfer.
    func write(_ bytes: UnsafeRawBufferPointer, status: Int, contentRange: String?, resumeOffset: Int64) -> Bool {
        if descriptor < 0, !open(status: status, contentRange: contentRange, resumeOffset: resumeOffset) {
            return false
        }
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
    /// file); otherwise removes a fresh download's file. Returns an error if the file could not
    /// be put in place.
    func finish(succeeded: Bool) -> ConnectError? {
        if succeeded, descriptor < 0, error == nil, !open(status: 200, contentRange: nil, resumeOffset: 0) {
            return error
        }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        guard let writtenPath else { return nil }
        self.writtenPath = nil
        if resuming { return nil }
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

    private func open(status: Int, contentRange: String?, resumeOffset: Int64) -> Bool {
        let path: String
        var flags = O_WRONLY | O_CREAT
        if resuming {
            path = destination.path
            switch ResumeDecision(status: status, contentRange: contentRange, bytesOnDisk: resumeOffset) {
            case .append:
                flags |= O_APPEND
                resumed = true
            case .startOver:
                flags |= O_TRUNC
            case .refuse(let reason):
                return fail("\(reason) (\(path))")
            }
        } else {
            path = destination.path + ".connect-\(UInt32.random(in: .min ... .max)).part"
            flags |= O_TRUNC | O_EXCL
        }
        descriptor = systemOpen(path, flags, 0o644)
        guard descriptor >= 0 else {
            return fail("could not open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        writtenPath = path
        return true
    }

    /// The first byte of a `Content-Range: bytes 100-199/200` header.
    private func fail(_ message: String) -> Bool {
        error = .transport(TransportFailure(.localFile, message))
        return false
    }
}
