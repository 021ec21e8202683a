import NIOConcurrencyHelpers
import Foundation
import NIOCore
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1 that answers in raw bytes: each request it reads is answered
/// by a script of writes, pauses and closes, so a test can send what no well-behaved server
/// would (two responses to one request, a cut-off head, a garbage status line, …).
///
/// ```swift
/// let server = try RawServer { request, _ in
///     [.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .close]
/// }
/// defer { server.shutdown() }
/// ```
/// It reads requests framed by `Content-Length` or chunked, and records each one like
/// ``TestServer`` does. After a script that neither closes nor stalls, the connection reads
/// the next request.
public final class RawServer: LocalServer, @unchecked Sendable {
    /// What the server does next on a connection.
    public enum Step: Sendable {
        /// Writes these bytes.
        case send(Data)
        /// Waits before the next step.
        case pause(Duration)
        /// Closes the connection (FIN).
        case close
        /// Closes the connection with a TCP reset.
        case reset
        /// Does nothing more on this connection: no more writes, no more reads answered.
        case stall
        /// Opens the gate, and goes on: for a test to learn that the steps before it ran (bytes
        /// sent on a loopback connection are waiting at the client once written), or ended
        /// where the client closed the connection.
        case open(TestGate)

        /// Writes `text`, as UTF-8.
        public static func send(_ text: String) -> Step { .send(Data(text.utf8)) }
    }

    /// Answers `request`, the `index`-th (from 0) on its connection.
    public typealias Script = @Sendable (_ request: RecordedRequest, _ index: Int) -> [Step]

    /// Starts a server that answers each request with `script`'s steps, on 127.0.0.1 or on the
    /// Unix domain socket at `unixSocketPath`.
    public init(unixSocketPath: String? = nil, script: @escaping Script) throws {
        try super.init(unixSocketPath: unixSocketPath) { state, channel, connectionID in
            try channel.pipeline.syncOperations.addHandler(
                RawConnectionHandler(state: state, script: script, connectionID: connectionID))
        }
    }

    /// A complete response head and body: `Content-Length` is added unless `headers` frame the
    /// body themselves.
    public static func response(status: String = "200 OK", headers: [String] = [], body: String = "") -> String {
        var head = "HTTP/1.1 \(status)\r\n"
        let framed = headers.contains {
            $0.lowercased().hasPrefix("content-length:") || $0.lowercased().hasPrefix("transfer-encoding:")
        }
        for header in headers { head += header + "\r\n" }
        if !framed { head += "Content-Length: \(body.utf8.count)\r\n" }
        return head + "\r\n" + body
    }
}

/// Reads requests from one connection and plays the script for each.
final class RawConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let state: ServerState
    private let script: RawServer.Script
    private let connectionID: Int
    private var buffered: [UInt8] = []
    private var served = 0
    /// Set while a script plays, and for good after one that closes or stalls.
    private var busy = false

    init(state: ServerState, script: @escaping RawServer.Script, connectionID: Int) {
        self.state = state
        self.script = script
        self.connectionID = connectionID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        buffered += buffer.readBytes(length: buffer.readableBytes) ?? []
        serveNext(context: context)
    }

    private func serveNext(context: ChannelHandlerContext) {
        guard !busy, let (request, used) = RawRequestParser.parse(buffered, connectionID: connectionID) else { return }
        buffered.removeFirst(used)
        state.record(request)
        busy = true
        let steps = script(request, served)
        served += 1
        play(steps[...], context: context)
    }

    private func play(_ steps: ArraySlice<RawServer.Step>, context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            // The client closed the connection: the script ends here, and a test waiting for a
            // gate in it learns so.
            for case .open(let gate) in steps { gate.open() }
            return
        }
        guard let step = steps.first else {
            busy = false
            serveNext(context: context)
            return
        }
        let rest = steps.dropFirst()
        switch step {
        case .send(let bytes):
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
            play(rest, context: context)
        case .pause(let duration):
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: TimeAmount(duration)) {
                let (handler, context) = bound.value
                handler.play(rest, context: context)
            }
        case .close:
            context.close(promise: nil)
        case .reset:
            context.channel.reset()
        case .stall:
            break
        case .open(let gate):
            gate.open()
            play(rest, context: context)
        }
    }
}

/// Finds one whole request at the start of a byte buffer.
enum RawRequestParser {
    /// The request and how many bytes it took, or `nil` if it is not all there yet.
    static func parse(_ bytes: [UInt8], connectionID: Int) -> (RecordedRequest, Int)? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.firstRange(of: terminator)?.upperBound else { return nil }
        let lines = String(decoding: bytes[..<(headEnd - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
        var body: [UInt8] = []
        var end = headEnd
        if header("transfer-encoding")?.lowercased().contains("chunked") == true {
            while true {
                guard let sizeEnd = bytes[end...].firstRange(of: Array("\r\n".utf8)) else { return nil }
                let sizeText = String(decoding: bytes[end..<sizeEnd.lowerBound], as: UTF8.self).split(separator: ";")[0]
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                let dataStart = sizeEnd.upperBound
                guard bytes.count >= dataStart + size + 2 else { return nil }
                if size == 0 {
                    // The last chunk, then optional trailers and a blank line.
                    guard let trailerEnd = bytes[(dataStart - 2)...].firstRange(of: terminator) else { return nil }
                    end = trailerEnd.upperBound
                    break
                }
                body += bytes[dataStart..<(dataStart + size)]
                end = dataStart + size + 2
            }
        } else if let length = header("content-length").flatMap({ Int($0) }) {
            guard bytes.count >= headEnd + length else { return nil }
            body = Array(bytes[headEnd..<(headEnd + length)])
            end = headEnd + length
        }
        let request = RecordedRequest(
            method: String(requestLine[0]), uri: String(requestLine[1]), headers: headers, body: Data(body),
            connectionID: connectionID)
        return (request, end)
    }
}
