import CZlib

/// permessage-deflate (RFC 7692) as negotiated: each message's payload compressed with raw
/// DEFLATE, flushed to a byte boundary, its final empty block (`00 00 FF FF`) left off; the
/// LZ77 window carried from message to message unless a side's "no context takeover" says
/// otherwise.
///
/// A class holding zlib's two streams, used on the transfer thread alone. The decisions (what
/// a message becomes, when a window is dropped, the limit on inflated size) are here and tested
/// without a socket.
final class PermessageDeflate {
    let parameters: DeflateParameters
    private let deflater: UnsafeMutablePointer<z_stream>?
    private let inflater: UnsafeMutablePointer<z_stream>
    /// The tail a sender takes off each message and a receiver puts back (§7.2.1, §7.2.2).
    static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// Why a server's compressed message is refused.
    enum Failure: Error, Equatable {
        /// Inflated, it is larger than the limit (1009).
        case tooBig
        /// It is not valid DEFLATE data (1007).
        case corrupt(String)
    }

    init?(parameters: DeflateParameters) {
        self.parameters = parameters
        inflater = .allocate(capacity: 1)
        inflater.initialize(to: z_stream())
        // The largest window reads anything a server with a narrower one wrote.
        guard czlib_inflate_init(inflater, -MAX_WBITS) == Z_OK else {
            inflater.deallocate()
            return nil
        }
        // zlib cannot write raw DEFLATE with a 256-byte window (it widens 8 to 9 bits), which a
        // server that asked for 8 could not read: then messages go out uncompressed, which a
        // sender may always choose (§6.1).
        if parameters.clientMaxWindowBits > 8 {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            if czlib_deflate_init(stream, Z_DEFAULT_COMPRESSION, -Int32(parameters.clientMaxWindowBits)) == Z_OK {
                deflater = stream
            } else {
                stream.deallocate()
                deflater = nil
            }
        } else {
            deflater = nil
        }
    }

    deinit {
        inflateEnd(inflater)
        inflater.deallocate()
        if let deflater {
            deflateEnd(deflater)
            deflater.deallocate()
        }
    }

    /// `payload` compressed as one message, or `nil` when it goes out uncompressed.
    ///
    /// Once zlib has read a message, the LZ77 window holds it, and with context takeover the
    /// next message may point back into it: the server's inflater must have read it too, so it
    /// goes out compressed even when that is a few bytes larger (DEFLATE adds at most 5 bytes
    /// per 64 KiB to what it cannot shrink). Without context takeover each message stands alone
    /// and goes out the smaller way. Uncompressed: no compressor (an 8-bit window), an empty
    /// message, or a zlib failure, after which the window starts empty (a suffix of what the
    /// server has read, so its references still hold).
    func compress(_ payload: [UInt8]) -> [UInt8]? {
        guard let deflater, !payload.isEmpty else { return nil }
        let keepsWindow = !parameters.clientNoContextTakeover
        var compressed = deflate(payload, with: deflater)
        if compressed == nil || !keepsWindow { deflateReset(deflater) }
        if !keepsWindow, let output = compressed, output.count >= payload.count { compressed = nil }
        return compressed
    }

    /// `payload` through zlib with a sync flush, its tail taken off; `nil` when zlib fails.
    private func deflate(_ payload: [UInt8], with deflater: UnsafeMutablePointer<z_stream>) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: payload.count + payload.count / 8 + 64)
        var written = 0
        let status: Int32 = payload.withUnsafeBufferPointer { input in
            deflater.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            deflater.pointee.avail_in = uInt(input.count)
            var status = Z_OK
            repeat {
                if written == output.count { output += [UInt8](repeating: 0, count: output.count) }
                status = output.withUnsafeMutableBufferPointer { buffer in
                    deflater.pointee.next_out = buffer.baseAddress! + written
                    deflater.pointee.avail_out = uInt(buffer.count - written)
                    let status = CZlib.deflate(deflater, Z_SYNC_FLUSH)
                    written = buffer.count - Int(deflater.pointee.avail_out)
                    return status
                }
            } while status == Z_OK && (deflater.pointee.avail_in > 0 || deflater.pointee.avail_out == 0)
            return status
        }
        guard status == Z_OK || status == Z_BUF_ERROR, written >= 4, Array(output[(written - 4)..<written]) == Self.tail
        else { return nil }
        output.removeSubrange((written - 4)...)
        return output
    }

    /// A server's compressed message inflated, refused once it passes `limit` bytes.
    func decompress(_ payload: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        defer { if parameters.serverNoContextTakeover { inflateReset(inflater) } }
        let input = payload + Self.tail
        var output = [UInt8](repeating: 0, count: min(max(payload.count * 4, 256), limit + 1))
        var written = 0
        var status = Z_OK
        input.withUnsafeBufferPointer { input in
            inflater.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            inflater.pointee.avail_in = uInt(input.count)
            while true {
                if written == output.count {
                    guard output.count <= limit else { return }
                    output += [UInt8](repeating: 0, count: min(output.count, limit + 1 - output.count))
                }
                status = output.withUnsafeMutableBufferPointer { buffer in
                    inflater.pointee.next_out = buffer.baseAddress! + written
                    inflater.pointee.avail_out = uInt(buffer.count - written)
                    let status = inflate(inflater, Z_SYNC_FLUSH)
                    written = buffer.count - Int(inflater.pointee.avail_out)
                    return status
                }
                guard status == Z_OK, inflater.pointee.avail_in > 0 || inflater.pointee.avail_out == 0 else { return }
            }
        }
        if written > limit { throw .tooBig }
        // Z_STREAM_END: the server ended the DEFLATE stream with a final block, which §7.2.3.3
        // allows; the next message then starts a new stream.
        if status == Z_STREAM_END { inflateReset(inflater) }
        guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else {
            throw .corrupt(inflater.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)")
        }
        guard inflater.pointee.avail_in == 0 || status == Z_STREAM_END else {
            throw .corrupt("bytes after the end of the compressed message")
        }
        output.removeSubrange(written...)
        return output
    }
}
