import CZlibReference
import FuzzSupport

@testable import ConnectWire

/// The content decoders: any bytes in any coding, in any pieces, never crash and never give
/// more than the limit; zlib's own inflate is the reference for gzip and deflate (where it reads
/// a whole stream, Connect's decoder gives the same bytes and says the body is whole); and
/// whatever zlib compresses, Connect decodes back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDecoding(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let (choice, data) = FuzzInput(start, count).choiceAndData
    let codings: [ContentDecoder.Coding] = [.gzip, .deflate, .brotli, .zstd]
    let coding = codings[Int(choice & 3)]
    let sizes = FuzzInput.sizes(from: choice >> 2)
    let decoded = decode(FuzzInput.pieces(of: data, sizes: sizes), coding)
    if coding == .gzip || coding == .deflate, let reference = inflate(data, gzip: coding == .gzip),
        reference.count < limit
    {
        // A gzip body may hold more members after the one zlib reads: the first agrees.
        let common = min(decoded.output.count, reference.count)
        require(
            decoded.output.prefix(common).elementsEqual(reference.prefix(common)),
            "\(coding) decodes differently from zlib")
        if !decoded.failed {
            require(decoded.output.starts(with: reference), "\(coding) stops short of zlib's output")
        }
    }
    // A round trip through zlib's own encoder.
    for format in [ZlibFormat.zlib, .gzip] {
        let compressed = deflate(data, format: format)
        let back = decode(FuzzInput.pieces(of: compressed, sizes: sizes), format == .gzip ? .gzip : .deflate)
        require(!back.failed && back.complete && back.output == data, "\(format) round trip failed")
    }
    return 0
}

/// More decoded output than the harness takes: a bomb is cut off here, as the transport cuts
/// it off at the body limit.
let limit = 1 << 20

func decode(_ pieces: [[UInt8]], _ coding: ContentDecoder.Coding) -> (output: [UInt8], failed: Bool, complete: Bool) {
    guard let decoder = try? ContentDecoder(coding: coding) else { return ([], true, false) }
    var output: [UInt8] = []
    for piece in pieces {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: piece.count, alignment: 1)
        defer { input.deallocate() }
        input.copyBytes(from: piece)
        do {
            let delivered = try decoder.decode(UnsafeRawBufferPointer(input)) { chunk in
                guard output.count + chunk.count <= limit else { return false }
                output += chunk
                return true
            }
            if !delivered { return (output, true, false) }
        } catch {
            return (output, true, false)
        }
    }
    return (output, false, decoder.isComplete)
}

enum ZlibFormat { case zlib, gzip }

/// zlib's inflate over the whole input at once: the output of one complete stream, or `nil`
/// when zlib finds no complete stream at the start.
func inflate(_ input: [UInt8], gzip: Bool) -> [UInt8]? {
    var stream = z_stream()
    guard inflateInit2_(&stream, gzip ? 31 : 15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        return nil
    }
    defer { inflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: limit + 1)
    var input = input
    let status = input.withUnsafeMutableBufferPointer { source in
        output.withUnsafeMutableBufferPointer { target in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            stream.next_out = target.baseAddress
            stream.avail_out = uInt(target.count)
            return CZlibReference.inflate(&stream, Z_FINISH)
        }
    }
    guard status == Z_STREAM_END else { return nil }
    return Array(output.prefix(Int(stream.total_out)))
}

/// `input` compressed by zlib, as a zlib or a gzip stream.
func deflate(_ input: [UInt8], format: ZlibFormat) -> [UInt8] {
    var stream = z_stream()
    guard
        deflateInit2_(
            &stream, 6, Z_DEFLATED, format == .gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { fatalError("deflateInit2 failed") }
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
    var input = input
    input.withUnsafeMutableBufferPointer { source in
        output.withUnsafeMutableBufferPointer { target in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            stream.next_out = target.baseAddress
            stream.avail_out = uInt(target.count)
            require(CZlibReference.deflate(&stream, Z_FINISH) == Z_STREAM_END, "zlib could not compress")
        }
    }
    return Array(output.prefix(Int(stream.total_out)))
}
