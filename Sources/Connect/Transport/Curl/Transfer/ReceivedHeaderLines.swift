internal import ConnectWire

/// The header lines of a response as the transfer thread receives them ("Name: value", each
/// ending in CRLF), in one malloc'd block that the ``ResponseBuffers`` keeps from response to
/// response.
///
/// Appending a line is a capacity check and a `memcpy` (``GrowableBytes``), where appending to an
/// array goes through its generic growth path: for every header line, on the thread that bounds
/// the client's rate. The `Response` gets a ``RawHeaders`` copy, made on the callback queue.
struct ReceivedHeaderLines: ~Copyable {
    private var buffer = GrowableBytes()

    init() {}

    /// Bytes the block holds room for.
    var capacity: Int { buffer.capacity }

    /// Appends one line as libcurl hands it over, line ending included; `false` if memory ran out.
    mutating func append(line: UnsafeRawBufferPointer) -> Bool {
        // A first block of 512 bytes rather than the buffer's 4 KiB: most heads fit, and a
        // client keeps up to 64 of these blocks in its pool of received responses.
        if buffer.capacity == 0 { buffer.reserveCapacity(512) }
        return buffer.append(line)
    }

    /// Joins an obs-fold line to the line before it, as ``RawHeaders/appendContinuation(_:)``
    /// does; `false` if memory ran out. Rare (RFC 9112 deprecates the fold), so it goes through a
    /// copy.
    mutating func appendContinuation(_ line: UnsafeRawBufferPointer) -> Bool {
        var joined = copy()
        joined.appendContinuation(line)
        buffer.removeAll(keepingCapacity: true)
        return joined.bytes.withUnsafeBytes { buffer.append($0) }
    }

    /// Forgets the lines: a new head starts (after an interim response), or the block goes back
    /// to the pool.
    mutating func removeAll(keepingCapacity: Bool = true) {
        buffer.removeAll(keepingCapacity: keepingCapacity)
    }

    /// The lines, in a block of the calling thread's.
    func copy() -> RawHeaders {
        RawHeaders(bytes: buffer.withUnsafeBytes { Array($0) })
    }

    /// The value of the first header named `name`, if any: for the few the transport reads
    /// itself, once a response, where the lines are.
    func value(for name: String) -> String? {
        buffer.withUnsafeBytes { RawHeaders.value(for: name, in: $0) }
    }

    /// The values of every header named `name`, in order, where the lines are.
    func values(for name: String) -> [String] {
        buffer.withUnsafeBytes { RawHeaders.values(for: name, in: $0) }
    }
}
