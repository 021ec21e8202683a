internal import ConnectWire

/// A decoded body's way into a consumer that can be full (a stream's buffer). libcurl hands the
/// body as it came (chunked, compressed); the decoder turns one input into decoded pieces, and
/// the consumer takes each, or is full. A full consumer pauses libcurl, which hands the same
/// input over again when it resumes: what was already decoded from it waits here (the backlog),
/// goes first on resuming, and that much of the input is skipped, so that no decoded byte is lost
/// or delivered twice.
///
/// A plain value beside the transfer's decoder, tested without a transfer
/// (`PausableDecodingTests`).
struct PausableDecoding {
    /// What libcurl is told after an input.
    enum Outcome: Equatable {
        /// The input was decoded and every piece taken.
        case consumed
        /// The consumer is full: pause, and hand the same input over again on resuming.
        case paused
        /// The consumer refused a piece, or the decoder stopped: end the transfer.
        case stopped
    }

    /// What the consumer did with a piece.
    enum Taken: Equatable {
        /// Took all of it.
        case all
        /// Took none of it: it is full.
        case full
        /// Refused it: the transfer must end (a file that cannot be written, a body over the limit).
        case refused
    }

    /// Decoded bytes the consumer has not taken yet.
    private(set) var backlog: [UInt8] = []
    /// How many bytes of the input libcurl hands over again on resuming were decoded into the
    /// backlog already.
    private(set) var inputAlreadyDecoded = 0

    /// Decodes `input` with `decoder`, handing the pieces to `take`: the backlog first, then what
    /// `input` holds beyond what was decoded before the pause.
    mutating func decode(
        _ input: UnsafeRawBufferPointer, with decoder: BodyDecoder, into take: (UnsafeRawBufferPointer) -> Taken
    ) throws(BodyDecoder.Failure) -> Outcome {
        if !backlog.isEmpty {
            switch backlog.withUnsafeBytes(take) {
            case .all: backlog.removeAll()
            case .full: return .paused
            case .refused: return .stopped
            }
        }
        let skipped = min(inputAlreadyDecoded, input.count)
        inputAlreadyDecoded = 0
        var paused = false
        let delivered = try decoder.decode(UnsafeRawBufferPointer(rebasing: input[skipped...])) { piece in
            if !paused {
                switch take(piece) {
                case .all: return true
                case .refused: return false
                case .full: paused = true
                }
            }
            backlog.append(contentsOf: piece)
            return true
        }
        guard delivered else { return .stopped }
        guard !paused else {
            inputAlreadyDecoded = input.count
            return .paused
        }
        return .consumed
    }
}
