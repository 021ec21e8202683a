#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bytes of a streamed request body between its producer (a task iterating the sequence)
/// and libcurl's read callback, and the decisions of ``BodyPump`` as a value.
///
/// At most `limit` bytes wait: a deposit that fills the buffer makes the producer wait until the
/// reader has brought it under half the limit, so a producer faster than the network is held
/// back instead of filling memory. A read that finds the buffer empty pauses the transfer; the
/// next deposit (or the end) resumes it.
///
/// A body that declared its size must produce exactly that many bytes. libcurl stops reading
/// once that many went out, so the last byte is held back until the sequence has ended: a
/// sequence that goes on producing fails the request instead of being cut off unnoticed.
struct UploadBuffer {
    /// What a read hands libcurl.
    enum Read: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing waits yet: pause the transfer until the producer deposits.
        case pause
        /// The body is complete.
        case end
        /// The body failed; see ``UploadBuffer/failure``.
        case abort
    }

    /// What a deposit means for the two sides.
    struct Deposit: Equatable {
        /// The reader paused on an empty buffer: resume the transfer.
        var resumesReader: Bool
        /// The buffer is full: the producer waits for room.
        var producerWaits: Bool
    }

    let limit: Int
    /// The size the body declared, if any.
    let declaredCount: Int?
    /// Deposited chunks; those before `head` are read.
    private var chunks: [Data] = []
    private var head = 0
    /// How much of `chunks[head]` has been read.
    private var offset = 0
    /// Bytes deposited and not read.
    private(set) var buffered = 0
    /// Bytes deposited in all.
    private(set) var produced = 0
    /// Bytes read in all.
    private(set) var consumed = 0
    /// The most bytes that ever waited.
    private(set) var peak = 0
    /// The last read found nothing and paused the transfer.
    private(set) var readerPaused = false
    /// The producer finished: every byte is deposited.
    private(set) var isFinished = false
    /// Why the body failed: the sequence threw, or it produced another size than it declared.
    private(set) var failure: (any Error)?

    init(limit: Int, declaredCount: Int?) {
        self.limit = limit
        self.declaredCount = declaredCount
    }

    /// The producer may go on: there is room, or the body ended.
    var hasRoom: Bool { buffered <= limit / 2 || failure != nil || isFinished }

    /// Takes `chunk` from the producer.
    mutating func deposit(_ chunk: Data) -> Deposit {
        guard failure == nil, !isFinished else { return Deposit(resumesReader: false, producerWaits: false) }
        produced += chunk.count
        if let declaredCount, produced > declaredCount {
            return fail(
                ConnectError.invalidRequest(
                    "the body sequence produced more than the \(declaredCount) bytes it declared"))
        }
        chunks.append(chunk)
        buffered += chunk.count
        peak = max(peak, buffered)
        let resumes = readerPaused
        readerPaused = false
        return Deposit(resumesReader: resumes, producerWaits: buffered >= limit)
    }

    /// The producer reached the end of the sequence. Returns whether the reader must be resumed.
    mutating func finish() -> Bool {
        guard failure == nil, !isFinished else { return false }
        if let declaredCount, produced != declaredCount {
            return fail(
                ConnectError.invalidRequest(
                    "the body sequence ended after \(produced) of the \(declaredCount) bytes it declared")
            ).resumesReader
        }
        isFinished = true
        return takeReaderPause()
    }

    /// The body failed with `error`. Returns what to do; the producer never waits again.
    @discardableResult
    mutating func fail(_ error: any Error) -> Deposit {
        if failure == nil { failure = error }
        chunks.removeAll()
        head = 0
        offset = 0
        buffered = 0
        return Deposit(resumesReader: takeReaderPause(), producerWaits: false)
    }

    /// Copies the next bytes into `buffer`.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        if failure != nil { return .abort }
        var available = buffered
        if let declaredCount, !isFinished {
            available = min(available, declaredCount - consumed - 1)
        }
        guard available > 0 else {
            if isFinished { return .end }
            readerPaused = true
            return .pause
        }
        let wanted = min(buffer.count, available)
        var copied = 0
        while copied < wanted, head < chunks.count {
            let chunk = chunks[head]
            let count = min(wanted - copied, chunk.count - offset)
            chunk.withUnsafeBytes { bytes in
                (buffer.baseAddress! + copied).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            }
            copied += count
            offset += count
            if offset == chunk.count {
                // Let go of a read chunk at once; the array is compacted now and then, not per
                // chunk, so that many small chunks cost no quadratic shuffling.
                chunks[head] = Data()
                head += 1
                offset = 0
            }
        }
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 {
            chunks.removeFirst(head)
            head = 0
        }
        buffered -= copied
        consumed += copied
        return .bytes(copied)
    }

    private mutating func takeReaderPause() -> Bool {
        defer { readerPaused = false }
        return readerPaused
    }
}
