import Foundation
import Testing

@testable import Connect

/// The streamed request body's buffer decisions, without a socket: when the reader pauses and
/// is resumed, when the producer waits, and how a declared size is held to.
@Suite("Upload buffer decisions")
struct UploadBufferTests {
    /// One step, and what the buffer answers.
    enum Step: Sendable, CustomStringConvertible {
        /// Deposit this many bytes; expect a resume of the reader and a wait of the producer.
        case deposit(Int, resumes: Bool, waits: Bool)
        /// Read with a buffer of this size; expect this read.
        case read(Int, UploadBuffer.Read)
        /// The producer ends; expect a resume of the reader.
        case finish(resumes: Bool)
        /// Expect the producer to have room (or not).
        case room(Bool)
        /// Expect a failure whose description contains this.
        case failed(String)

        var description: String {
            switch self {
            case .deposit(let count, let resumes, let waits):
                return "deposit \(count) → resumes \(resumes), waits \(waits)"
            case .read(let size, let read): return "read \(size) → \(read)"
            case .finish(let resumes): return "finish → resumes \(resumes)"
            case .room(let room): return "room \(room)"
            case .failed(let text): return "failed: \(text)"
            }
        }
    }

    @Test(arguments: [
        // A reader faster than the producer pauses on an empty buffer; the next deposit resumes it.
        (
            "reader waits", nil as Int?,
            [
                Step.read(100, .pause), .deposit(10, resumes: true, waits: false), .read(100, .bytes(10)),
                .read(100, .pause), .finish(resumes: true), .read(100, .end)
            ]
        ),
        // A producer faster than the reader waits at the limit and goes on under half of it.
        (
            "producer waits", nil,
            [
                .deposit(60, resumes: false, waits: false), .deposit(40, resumes: false, waits: true), .room(false),
                .read(30, .bytes(30)), .room(false), .read(30, .bytes(30)), .room(true),
                .deposit(10, resumes: false, waits: false), .read(1000, .bytes(50)), .finish(resumes: false),
                .read(10, .end)
            ]
        ),
        // Reads cross chunk boundaries and split chunks.
        (
            "chunks", nil,
            [
                .deposit(5, resumes: false, waits: false), .deposit(5, resumes: false, waits: false),
                .read(3, .bytes(3)), .read(4, .bytes(4)), .read(10, .bytes(3)), .read(10, .pause)
            ]
        ),
        // A declared size: exactly that many bytes.
        (
            "declared, exact", 10,
            [
                .deposit(4, resumes: false, waits: false), .deposit(6, resumes: false, waits: false),
                .finish(resumes: false), .read(20, .bytes(10)), .read(20, .end)
            ]
        ),
        // The last byte waits for the end of the sequence: libcurl reads no further.
        (
            "declared, last byte held", 10,
            [
                .deposit(10, resumes: false, waits: false), .read(20, .bytes(9)), .read(20, .pause),
                .finish(resumes: true), .read(20, .bytes(1)), .read(20, .end)
            ]
        ),
        (
            "declared, more after the last byte", 10,
            [
                .deposit(10, resumes: false, waits: false), .read(20, .bytes(9)), .read(20, .pause),
                .deposit(1, resumes: true, waits: false), .failed("more than the 10 bytes it declared"),
                .read(20, .abort)
            ]
        ),
        (
            "declared, too many", 10,
            [
                .deposit(4, resumes: false, waits: false), .read(20, .bytes(4)), .read(20, .pause),
                .deposit(7, resumes: true, waits: false), .failed("more than the 10 bytes it declared"),
                .read(20, .abort), .room(true)
            ]
        ),
        (
            "declared, too few", 10,
            [
                .deposit(4, resumes: false, waits: false), .read(20, .bytes(4)), .read(20, .pause),
                .finish(resumes: true), .failed("ended after 4 of the 10 bytes it declared"), .read(20, .abort)
            ]
        )
    ])
    func steps(name: String, declared: Int?, steps: [Step]) {
        var buffer = UploadBuffer(limit: 100, declaredCount: declared)
        var bytes = [UInt8](repeating: 0, count: 1000)
        var produced = 0
        var consumed = [UInt8]()
        for step in steps {
            switch step {
            case .deposit(let count, let resumes, let waits):
                let chunk = cyclicBytes(count, plus: produced)
                produced += count
                #expect(
                    buffer.deposit(chunk) == UploadBuffer.Deposit(resumesReader: resumes, producerWaits: waits),
                    "\(name): \(step)")
            case .read(let size, let expected):
                let read = bytes.withUnsafeMutableBytes {
                    buffer.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<size]))
                }
                #expect(read == expected, "\(name): \(step)")
                if case .bytes(let count) = read { consumed += bytes[..<count] }
            case .finish(let resumes):
                #expect(buffer.finish() == resumes, "\(name): \(step)")
            case .room(let room):
                #expect(buffer.hasRoom == room, "\(name): \(step)")
            case .failed(let text):
                #expect(buffer.failure.map { "\($0)" }?.contains(text) == true, "\(name): \(step)")
            }
        }
        // What was read is what was produced, in order.
        #expect(consumed == (0..<consumed.count).map { UInt8($0 % 251) }, "\(name)")
    }

    @Test func manySmallChunksAreReadInOrder() {
        var buffer = UploadBuffer(limit: 1 << 20, declaredCount: nil)
        for index in 0..<10_000 { _ = buffer.deposit(Data([UInt8(index % 251)])) }
        var bytes = [UInt8](repeating: 0, count: 777)
        var consumed = [UInt8]()
        while case .bytes(let count) = bytes.withUnsafeMutableBytes({ buffer.read(into: $0) }) {
            consumed += bytes[..<count]
        }
        #expect(consumed == (0..<10_000).map { UInt8($0 % 251) })
        #expect(buffer.peak == 10_000)
        #expect(buffer.buffered == 0)
    }
}
