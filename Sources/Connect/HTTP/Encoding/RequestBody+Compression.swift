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

extension RequestBody {
    /// This body compressed with `compression`, sent with `Content-Encoding` naming it.
    ///
    /// ```swift
    /// let body = try RequestBody.json(report).compressed(.gzip)
    /// ```
    ///
    /// Bytes in memory (``data(_:contentType:)``, ``json(_:encoder:)``) are compressed now, and
    /// go out with their compressed `Content-Length`. A stream
    /// (``stream(_:count:contentType:)``) or a file (``file(_:contentType:)``) is compressed as
    /// it is sent, 64 KiB at most held at a time, and goes out chunked (HTTP/1.1) or in DATA
    /// frames until its end (HTTP/2); a body that can be sent again still can, compressed again
    /// from its start. Compressing a compressed body adds the second coding after the first
    /// (`Content-Encoding: gzip, br`), as HTTP reads them.
    ///
    /// The server must decode the coding: send compressed bodies only to servers that say they
    /// take them. The body's `Content-Type` stays the same.
    ///
    /// - Throws: ``ConnectError/invalidRequest(_:)`` for a multipart body, which libcurl encodes
    ///   as it sends it, and if the compressor cannot start or fails (out of memory).
    public func compressed(_ compression: BodyCompression) throws(ConnectError) -> RequestBody {
        let encoding = contentEncoding.map { "\($0), \(compression.name)" } ?? compression.name
        switch content {
        case .data(let data):
            do {
                let compressed = try compression.makeCompressor().compressWhole(data)
                return RequestBody(content: .data(compressed), contentType: contentType, contentEncoding: encoding)
            } catch {
                throw Self.failure(compressing: compression, error)
            }
        case .stream(let body):
            return RequestBody(
                content: .stream(Self.compressedStream(body, with: compression)), contentType: contentType,
                contentEncoding: encoding)
        case .file(let url, _):
            let body = StreamedBody(count: nil, isReplayable: true) {
                { inlet in try await Self.pourFile(url, into: inlet) }
            }
            return RequestBody(
                content: .stream(Self.compressedStream(body, with: compression)), contentType: contentType,
                contentEncoding: encoding)
        case .multipart:
            throw .invalidRequest(
                "a multipart body cannot be compressed: libcurl encodes it as it sends it; compress the parts instead")
        }
    }

    /// `body`'s bytes compressed as they are poured: no size known up front, and replayable if
    /// `body` is.
    private static func compressedStream(_ body: StreamedBody, with compression: BodyCompression) -> StreamedBody {
        StreamedBody(count: nil, isReplayable: body.isReplayable) {
            // A one-time body hands out its pass once; this body then counts as read too.
            let pass = body.takePass()
            return { inlet in
                guard let pass else {
                    throw ConnectError.transport(
                        TransportFailure(
                            .bodyNotReplayable,
                            "The request body is a one-time stream that was already sent; it cannot be sent again",
                            requestSent: false))
                }
                do {
                    let encoder = try BodyEncoder(compression: compression, next: inlet)
                    try await pass(encoder.inlet)
                    try await encoder.finish()
                } catch let failure as CompressorFailure {
                    throw Self.failure(compressing: compression, failure)
                }
            }
        }
    }

    /// The file at `url`, 64 KiB at a time, into `inlet`.
    private static func pourFile(_ url: URL, into inlet: BodyPump.Inlet) async throws {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ConnectError.invalidRequest("the file \(url.path.debugDescription) cannot be read")
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw ConnectError.invalidRequest(
                    "the file \(url.path.debugDescription) could not be read: errno \(errno)")
            }
            guard count > 0, await inlet.deposit(buffer[..<count]) else { return }
        }
    }

    private static func failure(compressing compression: BodyCompression, _ error: any Error) -> ConnectError {
        .invalidRequest("the request body could not be compressed with \(compression.name): \(error)")
    }
}
