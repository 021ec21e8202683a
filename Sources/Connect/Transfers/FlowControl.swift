/// When a streamed body's transfer pauses and resumes: the decisions of ``StreamBuffer``, as a
/// value.
///
/// A chunk is refused (and the transfer paused, libcurl keeping the chunk) once `limit` bytes
/// wait unread. The transfer resumes when the consumer has brought the backlog under half the
/// limit, or waits on an empty buffer: resuming at once after every chunk taken would pause and
/// resume the transfer for every chunk.
struct FlowControl: Equatable {
    let limit: Int
    /// Bytes waiting for the consumer.
    private(set) var buffered = 0
    /// The transfer is paused: a chunk was refused and it has not been resumed since.
    private(set) var isPaused = false
    /// The most bytes that ever waited.
    private(set) var peak = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// A chunk of `count` bytes arrives; `buffering` is `false` when it goes straight to a
    /// waiting consumer. Returns whether it is taken: `false` pauses the transfer.
    mutating func offer(_ count: Int, buffering: Bool) -> Bool {
        guard buffered < limit else {
            isPaused = true
            return false
        }
        if buffering {
            buffered += count
            peak = max(peak, buffered)
        }
        return true
    }

    /// The consumer took a chunk of `count` bytes. Returns whether to resume the transfer.
    mutating func took(_ count: Int) -> Bool {
        buffered -= count
        return resumes(if: buffered < limit / 2)
    }

    /// The consumer waits on an empty buffer. Returns whether to resume the transfer.
    mutating func consumerWaits() -> Bool {
        resumes(if: true)
    }

    private mutating func resumes(if condition: Bool) -> Bool {
        guard isPaused, condition else { return false }
        isPaused = false
        return true
    }
}
