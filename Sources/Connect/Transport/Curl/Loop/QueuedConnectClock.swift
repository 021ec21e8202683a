/// The connect timeout libcurl is given for a transfer waiting in its queue for a connection,
/// where libcurl counts that wait toward it (``LibcurlDefects/countsQueueWaitInConnectTimeout``).
///
/// While the transfer waits, the loop moves the timeout on every ``step``, each time to the wait
/// so far, the attempt's own connect timeout and one step more: whenever the transfer leaves the
/// queue, to connect or to take an idle connection, it has at least its own connect timeout for
/// that, and at most a step more. Left as libcurl counts it, a transfer that waited longer than
/// the connect timeout timed out as it left the queue, and one that took an idle connection as
/// its time ran out was ended there with that connection closed (8.14 `multi_handle_timeout`
/// ends it as premature): a burst larger than the connections allowed went out over ever new
/// connections.
struct QueuedConnectClock {
    /// The attempt's own connect timeout, as libcurl applies it
    /// (``CurlTransfer/appliedConnectTimeout(_:)``).
    let connectTimeout: Duration
    /// When libcurl began counting: when the transfer went to it.
    let addedAt: MonotonicInstant

    /// How long one extension holds: an eighth of the connect timeout, and at least 100 ms, so
    /// that a loop pass that runs long (thousands of transfers, a loaded machine) does not let
    /// the transfer's time run out before the next extension.
    var step: Duration { max(connectTimeout / 8, .milliseconds(100)) }

    /// The connect timeout to give libcurl at `now`, until the next extension one ``step`` later.
    func timeout(at now: MonotonicInstant) -> Duration {
        (now - addedAt) + connectTimeout + step
    }
}
