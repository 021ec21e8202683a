/// Parses a `text/event-stream` body as it arrives, by the WHATWG HTML standard's rules: lines
/// end with CRLF, LF or CR (a CRLF split between two chunks is one line end), a leading BOM is
/// dropped, lines starting with a colon are comments, a field without a colon has an empty
/// value, one space after the colon is dropped, `data` lines join with line feeds, an `id`
/// containing NUL is ignored, `retry` counts only when it is all digits, an event is dispatched
/// at a blank line (and only if it has data), and an unfinished event at the end is discarded.
///
/// A plain value: feed it bytes, take the events. Lines and events longer than
/// ``maximumLineLength`` fail instead of growing memory.
struct ServerSentEventParser {
    /// Why a stream cannot be parsed.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case lineTooLong(limit: Int)

        var description: String {
            switch self {
            case .lineTooLong(let limit): return "an event-stream line or event is longer than \(limit) bytes"
            }
        }
    }

    /// The longest line, and the most data one event may gather.
    let maximumLineLength: Int
    /// The last event ID the stream set: what a reconnection sends as `Last-Event-ID`.
    private(set) var lastEventID: String?
    /// The reconnection time the stream asked for last.
    private(set) var reconnectionTime: Duration?

    private var line: [UInt8] = []
    private var lineEndedWithCR = false
    private var isFirstLine = true
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    private var pendingID: String??
    private var retryInBlock: Duration?

    init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// A parser for the next connection of the same stream: only the last event ID and the
    /// reconnection time carry over; a half-read event of the dropped connection is discarded.
    func continuing() -> ServerSentEventParser {
        var next = ServerSentEventParser(maximumLineLength: maximumLineLength)
        next.lastEventID = lastEventID
        next.reconnectionTime = reconnectionTime
        next.isFirstLine = false
        return next
    }

    /// Reads `bytes`, handing each event completed by them to `dispatch`.
    mutating func feed(_ bytes: some Collection<UInt8>, dispatch: (ServerSentEvent) -> Void) throws(Failure) {
        for byte in bytes {
            if lineEndedWithCR {
                lineEndedWithCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"):
                try endLine(dispatch: dispatch)
            case UInt8(ascii: "\r"):
                lineEndedWithCR = true
                try endLine(dispatch: dispatch)
            default:
                guard line.count < maximumLineLength else { throw .lineTooLong(limit: maximumLineLength) }
                line.append(byte)
            }
        }
    }

    /// Reads `bytes` and gives the events they complete.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(Failure) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        try feed(bytes) { events.append($0) }
        return events
    }

    private mutating func endLine(dispatch: (ServerSentEvent) -> Void) throws(Failure) {
        defer { line.removeAll(keepingCapacity: true) }
        var start = 0
        if isFirstLine {
            isFirstLine = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        }
        let content = line[start...]
        if content.isEmpty {
            dispatchEvent(dispatch)
            return
        }
        if content.first == UInt8(ascii: ":") { return }  // a comment
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = content.firstIndex(of: UInt8(ascii: ":")) {
            name = content[..<colon]
            value = content[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = content
            value = []
        }
        // Field names compared as bytes: a String per line would allocate for every event.
        if name.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("data".utf8) {
            guard data.count + value.count < maximumLineLength else { throw .lineTooLong(limit: maximumLineLength) }
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { pendingID = .some(String(decoding: value, as: UTF8.self)) }
        } else if name.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                reconnectionTime = .milliseconds(milliseconds)
                retryInBlock = reconnectionTime
            }
        }
        // Any other field is ignored.
    }

    /// The blank line: the event gathered so far goes out, if it has data.
    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent) -> Void) {
        if let pendingID {
            // An empty `id` resets the last event ID.
            lastEventID = pendingID.flatMap { $0.isEmpty ? nil : $0 }
            self.pendingID = nil
        }
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
            retryInBlock = nil
        }
        guard hasData else { return }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        dispatch(
            ServerSentEvent(
                id: lastEventID, event: type, data: String(decoding: data, as: UTF8.self), retry: retryInBlock))
    }
}
