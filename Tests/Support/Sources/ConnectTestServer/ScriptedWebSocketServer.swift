import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// A WebSocket server that plays a script of raw bytes after the opening handshake and records,
/// frame by frame, what the client sends back: the scripted server of the Autobahn|Testsuite
/// cases. SwiftNIO's `NIOWebSocket` answers the handshake; after it, the server writes exactly the
/// script's bytes (frames no well-behaved server sends, cut into any pieces) and reads the
/// client's frames with a parser of its own (``ClientFrameParser``).
///
/// ```swift
/// let server = try ScriptedWebSocketServer { [.send(textFrame), .awaitMessages(1), .send(closeFrame)] }
/// defer { server.shutdown() }
/// // … the client under test connects to server.webSocketURL …
/// let transcript = try await server.transcript()
/// ```
public final class ScriptedWebSocketServer: LocalServer, @unchecked Sendable {
    /// What the server does next after the handshake.
    public enum Step: Sendable {
        /// Writes these bytes as they are.
        case send(Data)
        /// Waits before the next step.
        case pause(Duration)
        /// Waits until the client has sent this many messages on the connection in all.
        case awaitMessages(Int)
    }

    /// What the client sent on one connection after the handshake.
    public struct Transcript: Sendable, Equatable {
        /// The client's messages, whole: text as its UTF-8 bytes.
        public var messages: [Message] = []
        /// The payloads of the client's pongs, in order.
        public var pongs: [[UInt8]] = []
        /// The client's close frame: `nil` if it sent none, else its code (`nil` for an empty
        /// close) and reason.
        public var close: Close?
        /// What broke RFC 6455 in the client's frames (an unmasked frame, say).
        public var violations: [String] = []
        /// Whether the connection has ended.
        public var ended = false

        /// A message the client sent.
        public struct Message: Sendable, Equatable {
            /// Whether it was a text message (else binary).
            public var isText: Bool
            /// Its payload, all fragments together.
            public var bytes: [UInt8]

            /// A message of `bytes`, text or binary.
            public init(isText: Bool, bytes: [UInt8]) {
                self.isText = isText
                self.bytes = bytes
            }
        }

        /// A close frame the client sent.
        public struct Close: Sendable, Equatable {
            /// Its status code; `nil` for an empty close frame.
            public var code: UInt16?
            /// The bytes after the code (UTF-8 if the client is right).
            public var reason: [UInt8]
        }
    }

    private let transcripts: NIOLockedValueBox<[Int: Transcript]>

    /// Starts a server on a free port that answers every handshake with a 101 carrying the
    /// `extra` headers (a subprotocol, an extension), then plays `script()` on the connection.
    /// When the script is over it waits for the client's close, echoes it unless the script
    /// sent a close of its own, and closes the connection.
    public init(extra: [(String, String)] = [], script: @escaping @Sendable () -> [Step]) throws {
        let transcripts = NIOLockedValueBox<[Int: Transcript]>([:])
        self.transcripts = transcripts
        try super.init { state, channel, connectionID in
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: 1 << 26,
                shouldUpgrade: { channel, head in
                    state.record(
                        RecordedRequest(
                            method: head.method.rawValue, uri: head.uri,
                            headers: head.headers.map { ($0.name, $0.value) }, body: Data(), connectionID: connectionID)
                    )
                    var headers = HTTPHeaders()
                    for (name, value) in extra { headers.add(name: name, value: value) }
                    return channel.eventLoop.makeSucceededFuture(headers)
                },
                upgradePipelineHandler: { channel, _ in
                    transcripts.withLockedValue { $0[connectionID] = Transcript() }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ScriptedWebSocketHandler(
                                steps: script(),
                                record: { change in
                                    transcripts.withLockedValue { change(&$0[connectionID, default: .init()]) }
                                },
                                messageCount: { transcripts.withLockedValue { $0[connectionID]?.messages.count ?? 0 } }),
                            // First in the pipeline: it reads and writes the socket's bytes itself,
                            // before NIOWebSocket's frame decoder and encoder.
                            position: .first)
                    }
                })
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        }
    }

    /// `ws://127.0.0.1:<port>`.
    public var webSocketURL: URL { URL(string: "ws://127.0.0.1:\(port)")! }

    /// What the client sent on the first connection, once that connection has ended (within
    /// `timeout`; the transcript so far after it).
    public func transcript(timeout: Duration = .seconds(20)) async throws -> Transcript {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let first = transcripts.withLockedValue({ $0.min { $0.key < $1.key }?.value }), first.ended {
                return first
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return transcripts.withLockedValue { $0.min { $0.key < $1.key }?.value } ?? Transcript()
    }
}

/// Plays the script on an upgraded connection and records the client's frames.
final class ScriptedWebSocketHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var steps: ArraySlice<ScriptedWebSocketServer.Step>
    private let record: @Sendable (_ change: (inout ScriptedWebSocketServer.Transcript) -> Void) -> Void
    private let messageCount: @Sendable () -> Int
    private var parser = ClientFrameParser()
    private var awaitedMessages: Int?
    private var scriptOver = false
    private var sentClose = false

    init(
        steps: [ScriptedWebSocketServer.Step],
        record: @escaping @Sendable (_ change: (inout ScriptedWebSocketServer.Transcript) -> Void) -> Void,
        messageCount: @escaping @Sendable () -> Int
    ) {
        self.steps = steps[...]
        self.record = record
        self.messageCount = messageCount
    }

    func handlerAdded(context: ChannelHandlerContext) {
        play(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        parser.receive(buffer.readBytes(length: buffer.readableBytes) ?? [])
        while let event = parser.next() {
            switch event {
            case .message(let message): record { $0.messages.append(message) }
            case .pong(let payload): record { $0.pongs.append(payload) }
            case .ping: break
            case .violation(let reason): record { $0.violations.append(reason) }
            case .close(let close):
                record { $0.close = close }
                answerClose(close, context: context)
                return
            }
        }
        if let awaited = awaitedMessages, messageCount() >= awaited {
            awaitedMessages = nil
            play(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        record { $0.ended = true }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func play(context: ChannelHandlerContext) {
        while context.channel.isActive, let step = steps.popFirst() {
            switch step {
            case .send(let bytes):
                if Self.isClose(bytes) { sentClose = true }
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
            case .pause(let duration):
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: TimeAmount(duration)) {
                    let (handler, context) = bound.value
                    handler.play(context: context)
                }
                return
            case .awaitMessages(let count):
                guard messageCount() < count else { continue }
                awaitedMessages = count
                return
            }
        }
        scriptOver = true
    }

    /// Whether `bytes` hold a close frame: the script's own close, after which the client's is
    /// not echoed.
    private static func isClose(_ bytes: Data) -> Bool {
        ServerFrameScanner(bytes: Array(bytes)).containsClose()
    }

    /// Answers the client's close with the same code (unless a close went out already), then
    /// ends the connection.
    private func answerClose(_ close: ScriptedWebSocketServer.Transcript.Close, context: ChannelHandlerContext) {
        let channel = context.channel
        guard !sentClose else {
            channel.close(promise: nil)
            return
        }
        sentClose = true
        var frame: [UInt8] = [0x88, close.code == nil ? 0 : 2]
        if let code = close.code { frame += [UInt8(code >> 8), UInt8(truncatingIfNeeded: code)] }
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: frame))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// Finds the frames in bytes a script sends, to tell whether they hold a close frame; it stops
/// at the first frame it cannot read (a script may send anything).
struct ServerFrameScanner {
    let bytes: [UInt8]

    func containsClose() -> Bool {
        var index = 0
        while let extent = FrameExtent(bytes, at: index) {
            if bytes[index] & 0x0F == 0x8 { return true }
            index += extent.header + extent.length
        }
        return false
    }
}

/// Where a frame's parts lie (RFC 6455 §5.2): the header's size (with the masking key, if any)
/// and the payload's length; `nil` until the whole header is there. The one reading of a
/// frame's length for the scanner of a script's bytes and the parser of the client's.
struct FrameExtent {
    /// The header's bytes, the masking key included.
    let header: Int
    let length: Int
    let isMasked: Bool

    init?(_ bytes: [UInt8], at start: Int) {
        let available = bytes.count - start
        guard available >= 2 else { return nil }
        var length = Int(bytes[start + 1] & 0x7F)
        var header = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[start + $1]) }
            header = 10
        }
        isMasked = bytes[start + 1] & 0x80 != 0
        self.header = header + (isMasked ? 4 : 0)
        self.length = length
    }
}

/// Reads a client's frames (RFC 6455 §5.2): each must be masked; messages are put together
/// from their fragments. The server side's own parser, written apart from the client under test.
public struct ClientFrameParser: Sendable {
    /// What one of the client's frames amounts to.
    public enum Event: Sendable, Equatable {
        case message(ScriptedWebSocketServer.Transcript.Message)
        case ping([UInt8])
        case pong([UInt8])
        case close(ScriptedWebSocketServer.Transcript.Close)
        case violation(String)
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var partial: ScriptedWebSocketServer.Transcript.Message?

    /// A parser that has read nothing yet.
    public init() {}

    /// Takes bytes as they arrived.
    public mutating func receive(_ bytes: [UInt8]) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer += bytes
    }

    /// The next event, or `nil` until more bytes arrive.
    public mutating func next() -> Event? {
        while true {
            guard let extent = FrameExtent(buffer, at: start) else { return nil }
            let first = buffer[start]
            let (header, length, masked) = (extent.header, extent.length, extent.isMasked)
            let keyStart = start + header - 4
            guard buffer.count - start >= header + length else { return nil }
            var payload = Array(buffer[(start + header)..<(start + header + length)])
            if masked {
                let key = (buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3])
                payload.withUnsafeMutableBufferPointer { bytes in
                    for index in bytes.indices {
                        switch index & 3 {
                        case 0: bytes[index] ^= key.0
                        case 1: bytes[index] ^= key.1
                        case 2: bytes[index] ^= key.2
                        default: bytes[index] ^= key.3
                        }
                    }
                }
            }
            start += header + length
            if !masked { return .violation("an unmasked frame") }
            if first & 0x30 != 0 { return .violation("reserved bits RSV2/RSV3 set") }
            let isFinal = first & 0x80 != 0
            switch first & 0x0F {
            case 0x1, 0x2:
                if partial != nil { return .violation("a new message inside another") }
                partial = .init(isText: first & 0x0F == 0x1, bytes: payload)
            case 0x0:
                guard partial != nil else { return .violation("a continuation of nothing") }
                partial?.bytes += payload
            case 0x8:
                let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
                return .close(.init(code: code, reason: Array(payload.dropFirst(2))))
            case 0x9: return .ping(payload)
            case 0xA: return .pong(payload)
            default: return .violation("the opcode \(first & 0x0F)")
            }
            if isFinal, let message = partial {
                partial = nil
                return .message(message)
            }
        }
    }
}
