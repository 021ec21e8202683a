import ConnectFutures

/// Spare ``ResponseBuffers``s: taken by the transfer thread, given back from any thread.
///
/// The transfer thread works from a private list and takes the lock only when that runs dry, to
/// collect everything given back since; the callback queue gives back a whole batch at a time.
final class ResponseBuffersPool: @unchecked Sendable {
    // @unchecked: `spare` is touched by the transfer thread alone; `returned` is behind its lock.
    @exclusivity(unchecked) private var spare: [ResponseBuffers] = []
    private let returned = Locked<[ResponseBuffers]>([])
    /// More spares than this are let go; otherwise as many are kept as there were transfers in
    /// flight at the busiest moment.
    private let limit: Int
    /// The large bodies' blocks, shared by every response of the client.
    let recycler: BodyBlockRecycler

    init(limit: Int, recycler: BodyBlockRecycler = BodyBlockRecycler()) {
        self.limit = limit
        self.recycler = recycler
    }

    /// An empty one for a new transfer. Transfer thread only.
    func take() -> ResponseBuffers {
        if let spare = spare.popLast() { return spare }
        returned.withLock { swap(&spare, &$0) }
        if spare.count > limit { spare.removeLast(spare.count - limit) }
        return spare.popLast() ?? ResponseBuffers(recycler: recycler)
    }

    /// One whose transfer failed on the transfer thread. Transfer thread only. Out of line: it
    /// serves failures, and inlined it would sit in the loop that collects every transfer.
    @inline(never)
    func reclaim(_ received: ResponseBuffers) {
        received.empty()
        if spare.count < limit { spare.append(received) }
    }

    /// Responses emptied by ``ResponseBuffers/makeResponse(url:onFillingThread:)``, from any
    /// thread; `emptied` is left empty, with its capacity. They are moved under the lock to the
    /// buffer the transfer thread last traded for its own, which has the capacity, or the two
    /// buffers trade when that one is empty: no array is made and no response copied.
    func giveBack(_ emptied: inout [ResponseBuffers]) {
        returned.withLock { returned in
            if returned.isEmpty {
                swap(&returned, &emptied)
            } else {
                while let received = emptied.popLast() { returned.append(received) }
            }
        }
    }

    /// One emptied response, from any thread.
    func giveBack(_ received: ResponseBuffers) {
        returned.withLock { $0.append(received) }
    }

    /// `giveBack(_:)` from the transfer thread: straight to its own list, without the lock.
    func keep(_ received: consuming ResponseBuffers) {
        if spare.count < limit { spare.append(received) }
    }
}
