internal import ConnectWire

/// The lines of a transfer's response heads, seen before libcurl stores them, on a libcurl that
/// ``LibcurlDefects/keepsFreedHeaderAcrossTransfers``: so that a handle that ran a transfer before
/// can run another, where such a libcurl would otherwise need a fresh handle per transfer.
///
/// Such a libcurl keeps a pointer to the last header it stored in a handle's previous transfer,
/// which it freed, and extends that header when the first header line of a head is folded (starts
/// with a space or tab): a double free inside libcurl. With `CURLOPT_HEADER` set, libcurl hands
/// every head line to the write callback before it stores the line (7.88 `sendf.c`: the body
/// writer, then `Curl_headers_push`, then the header writer), so the write callback refusing that
/// one line stops the transfer before libcurl touches the freed header. Connect's own head parser
/// refuses the same line anyway (``ResponseHeadParser/Problem/continuationBeforeAnyField``).
///
/// The head lines come to the write callback as they come to the header callback after it: whole
/// lines, a line over libcurl's write size in pieces. The screen tells them from the body the way
/// libcurl does: a head's first line is its status line, and a later line that starts with CR or
/// LF ends it; an interim head (1xx, but 101) is followed by another; the body starts after any
/// other. That holds only for a transfer whose answers libcurl reads as one exchange (see
/// ``CurlTransfer/screensHeads``): no challenge libcurl answers itself after dropping a body, no
/// proxy's answer to CONNECT, no HTTP/2 upgrade.
struct HeadScreen: Equatable {
    /// The transfer reads its heads through the write callback (`CURLOPT_HEADER`).
    let isEnabled: Bool
    /// The write callback is handed head lines: from the transfer's start to its final head's end.
    private(set) var isOpen: Bool
    /// The next piece starts a line.
    private var atLineStart = true
    /// The lines of the current head begun so far: 1 is its status line.
    private var linesBegun = 0
    /// The current head's status code as read so far, over as many pieces as its line came in.
    private var status = StatusCode()

    /// A screen for a transfer that reads its heads through the write callback, or (`enabled`
    /// false) one that does not, which is never open.
    init(enabled: Bool) {
        isEnabled = enabled
        isOpen = enabled
    }

    /// The transfer starts over: its heads come again from the first.
    mutating func startsOver() {
        self = HeadScreen(enabled: isEnabled)
    }

    /// Takes one piece of a head line that libcurl hands the write callback while the screen is
    /// open: `nil` to take it (the header callback reads the line after), or the problem that
    /// refuses it, which stops the transfer before libcurl stores the line.
    mutating func take(_ piece: UnsafeRawBufferPointer) -> ResponseHeadParser.Problem? {
        guard let first = piece.first else { return nil }
        defer { atLineStart = piece.last == UInt8(ascii: "\n") }
        guard atLineStart else {
            if linesBegun == 1 { status.read(piece) }
            return nil
        }
        linesBegun += 1
        if linesBegun == 1 {
            // The status line, whatever it holds: libcurl fails a transfer whose head does not
            // start with one.
            status.read(piece)
            return nil
        }
        if first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") {
            // The head ended: libcurl reads another after an interim one, else the body.
            if status.isInterim {
                linesBegun = 0
                status = StatusCode()
            } else {
                isOpen = false
            }
            return nil
        }
        if linesBegun == 2, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            return .continuationBeforeAnyField
        }
        return nil
    }

    /// A status line's code, read as libcurl 7.88's `sscanf` reads it (`http.c`): after the
    /// version, its blanks, then at most three digits.
    struct StatusCode: Equatable {
        private var inVersion = true
        private var digits = 0
        private var ended = false
        private(set) var value = 0

        /// Reads the next piece of the status line.
        mutating func read(_ piece: UnsafeRawBufferPointer) {
            for byte in piece {
                if ended { return }
                if inVersion {
                    inVersion = byte != UInt8(ascii: " ")
                } else if byte == UInt8(ascii: " "), digits == 0 {
                    continue
                } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                    digits += 1
                    ended = digits == 3
                } else {
                    ended = true
                }
            }
        }

        /// Whether libcurl reads another head after this one: a three-digit 1xx, but 101, which
        /// ends the heads of a transfer that asked for no upgrade.
        var isInterim: Bool {
            digits == 3 && (100...199).contains(value) && value != 101
        }
    }
}
