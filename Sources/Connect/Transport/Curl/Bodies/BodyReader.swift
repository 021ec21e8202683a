import CCurl
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

/// Feeds libcurl the bytes of a request body or of one multipart part, from memory, straight
/// from a file on disk, or from a sequence as it produces them, and rewinds when libcurl asks
/// (an authentication retry or a resend on a new connection sends the body again). Used by the
/// transfer thread only.
final class BodyReader {
    private enum Source {
        case data(Data)
        case file(descriptor: Int32)
        case stream(BodyPump)
    }

    private let source: Source
    private var offset = 0
    /// A streamed body's sequence ended and libcurl has read all of it.
    private(set) var streamEnded = false

    init(data: Data) {
        source = .data(data)
    }

    /// Opens `url` for reading; `nil` if it cannot be opened.
    init?(fileAt url: URL) {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        source = .file(descriptor: descriptor)
    }

    init(pump: BodyPump) {
        source = .stream(pump)
    }

    deinit {
        switch source {
        case .data: break
        case .file(let descriptor): close(descriptor)
        case .stream(let pump): pump.close()
        }
    }

    /// The streamed body's pump, for a body read from a sequence.
    var pump: BodyPump? {
        if case .stream(let pump) = source { return pump }
        return nil
    }

    /// Copies the next bytes into `buffer`; 0 at the end, `CURL_READFUNC_ABORT` on a read error,
    /// `CURL_READFUNC_PAUSE` when a stream has nothing yet.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch source {
        case .data(let data):
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            }
            offset += count
            return count
        case .file(let descriptor):
            let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
            return count >= 0 ? count : Int(CURL_READFUNC_ABORT)
        case .stream(let pump):
            let count = pump.read(into: buffer)
            if count == 0 { streamEnded = true }
            return count
        }
    }

    /// Moves to `position` from the start; `false` if that is impossible.
    func seek(to position: Int64) -> Bool {
        switch source {
        case .data(let data):
            guard position >= 0, position <= data.count else { return false }
            offset = Int(position)
            return true
        case .file(let descriptor):
            return lseek(descriptor, off_t(position), SEEK_SET) == off_t(position)
        case .stream(let pump):
            streamEnded = false
            return position == 0 && pump.rewind()
        }
    }
}

private func reader(_ context: UnsafeMutableRawPointer?) -> BodyReader {
    Unmanaged<BodyReader>.fromOpaque(context!).takeUnretainedValue()
}

/// CURLOPT_READFUNCTION and curl_mime_data_cb's read function.
let curlReadBody: ccurl_data_callback = { buffer, size, count, context in
    reader(context).read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

/// CURLOPT_SEEKFUNCTION and curl_mime_data_cb's seek function; only SEEK_SET is needed.
let curlSeekBody: ccurl_seek_callback = { context, offset, origin in
    guard origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    return reader(context).seek(to: Int64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
}

/// curl_mime_data_cb's free function: each part's reader is retained for libcurl.
let curlReleaseReader: ccurl_free_callback = { context in
    guard let context else { return }
    Unmanaged<BodyReader>.fromOpaque(context).release()
}
