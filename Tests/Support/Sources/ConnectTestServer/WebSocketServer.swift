import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// A WebSocket server on 127.0.0.1 and a free port, built on SwiftNIO's `NIOWebSocket`: an
/// implementation nobody here wrote, in this process.
///
/// It echoes every message, answers pings, offers the subprotocol `chat` when the client does,
/// and obeys text commands: `cmd:close <code> <reason>` starts the closing handshake,
/// `cmd:drop` closes the connection without a close frame, `cmd:flood <count> <bytes>` sends
/// that many binary messages (`cmd:flood-text <count> <bytes>`: text of ASCII letters),
/// `cmd:fragments` sends a text message in three fragments with a ping between them,
/// `cmd:bad-utf8` sends text that is not UTF-8, `cmd:reserved-bit` sends a frame with RSV2 set,
/// `cmd:ping` pings and reports the pong's payload as `pong:<payload>`, `cmd:headers` answers
/// with the handshake's headers as `name: value` lines.
///
/// Handshakes `refuse` answers with a response are refused with it (no upgrade).
public final class WebSocketServer: LocalServer, @unchecked Sendable {
    /// Frames and messages the server received, in order, as text: `text:<…>`, `binary:<count>`,
    /// `close:<code>:<reason>`, `ping`, `pong:<payload>`.
    public var received: [String] { log.withLockedValue { $0 } }
    private let log: NIOLockedValueBox<[String]>

    /// Starts a server on a free port; `refuse` answers the handshakes it refuses (returning
    /// `nil` lets a handshake through).
    public init(refuse: (@Sendable (RecordedRequest) -> TestResponse?)? = nil) throws {
        let log = NIOLockedValueBox<[String]>([])
        self.log = log
        try super.init { state, channel, connectionID in
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: 1 << 26,
                shouldUpgrade: { channel, head in
                    let recorded = RecordedRequest(
                        method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                        body: Data(), connectionID: connectionID)
                    if refuse?(recorded) != nil { return channel.eventLoop.makeSucceededFuture(nil) }
                    state.record(recorded)
                    var headers = HTTPHeaders()
                    let offered = head.headers["Sec-WebSocket-Protocol"].flatMap {
                        $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    }
                    if offered.contains("chat") { headers.add(name: "Sec-WebSocket-Protocol", value: "chat") }
                    return channel.eventLoop.makeSucceededFuture(headers)
                },
                upgradePipelineHandler: { channel, head in
                    let headerLines = head.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                maxAccumulatedFrameSize: 1 << 26),
                            WebSocketEchoHandler(log: log, headerLines: headerLines)
                        ])
                    }
                })
            // Answers the handshakes that are refused; taken out once the connection upgrades.
            let refusals = TestServerHandler(
                state: state, handler: { refuse?($0) ?? TestResponse(status: 400) }, connectionID: connectionID)
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (
                    upgraders: [upgrader],
                    completionHandler: { context in
                        context.pipeline.removeHandler(name: "refusals", promise: nil)
                    }
                ))
            try channel.pipeline.syncOperations.addHandler(refusals, name: "refusals")
        }
    }

    /// `ws://127.0.0.1:<port>`.
    public var webSocketURL: URL { URL(string: "ws://127.0.0.1:\(port)")! }
}

final class WebSocketEchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let log: NIOLockedValueBox<[String]>
    private let headerLines: String
    private var sentClose = false

    init(log: NIOLockedValueBox<[String]>, headerLines: String) {
        self.log = log
        self.headerLines = headerLines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        var payload = frame.unmaskedData
        switch frame.opcode {
        case .text:
            let text = payload.readString(length: payload.readableBytes) ?? ""
            record("text:\(text)")
            if text.hasPrefix("cmd:") {
                command(String(text.dropFirst(4)), context: context)
            } else {
                send(.text, text: text, context: context)
            }
        case .binary:
            record("binary:\(payload.readableBytes)")
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: payload)), promise: nil)
        case .ping:
            record("ping")
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
        case .pong:
            let text = String(decoding: payload.readableBytesView, as: UTF8.self)
            record("pong:\(text)")
            send(.text, text: "pong:\(text)", context: context)
        case .connectionClose:
            let code = payload.readableBytes >= 2 ? payload.readInteger(as: UInt16.self) ?? 0 : 0
            let reason = payload.readString(length: payload.readableBytes) ?? ""
            record("close:\(code):\(reason)")
            guard !sentClose else {
                context.close(promise: nil)
                return
            }
            sentClose = true
            var echo = context.channel.allocator.buffer(capacity: 2)
            if code != 0 { echo.writeInteger(code) }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: echo)))
                .whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    private func record(_ entry: String) {
        log.withLockedValue { $0.append(entry) }
    }

    private func send(_ opcode: WebSocketOpcode, text: String, fin: Bool = true, context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: text)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: fin, opcode: opcode, data: buffer)), promise: nil)
    }

    private func command(_ command: String, context: ChannelHandlerContext) {
        let words = command.split(separator: " ", maxSplits: 2).map(String.init)
        switch words.first {
        case "close":
            var payload = context.channel.allocator.buffer(capacity: 32)
            payload.writeInteger(UInt16(words.count > 1 ? words[1] : "1000") ?? 1000)
            payload.writeString(words.count > 2 ? words[2] : "")
            sentClose = true
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: nil)
        case "drop":
            context.close(promise: nil)
        case "flood", "flood-text":
            let count = words.count > 1 ? Int(words[1]) ?? 1 : 1
            let size = words.count > 2 ? Int(words[2]) ?? 1 : 1
            let isText = words[0] == "flood-text"
            for index in 0..<count {
                var buffer = context.channel.allocator.buffer(capacity: size)
                let byte = isText ? UInt8(ascii: "a") + UInt8(index % 26) : UInt8(truncatingIfNeeded: index)
                buffer.writeRepeatingByte(byte, count: size)
                context.write(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: isText ? .text : .binary, data: buffer)),
                    promise: nil)
            }
            context.flush()
        case "fragments":
            send(.text, text: "frag", fin: false, context: context)
            context.writeAndFlush(
                wrapOutboundOut(
                    WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(string: "between"))),
                promise: nil)
            send(.continuation, text: "ment", fin: false, context: context)
            send(.continuation, text: "ed ✓", fin: true, context: context)
        case "bad-utf8":
            var buffer = context.channel.allocator.buffer(capacity: 4)
            buffer.writeBytes([0x61, 0xC3, 0x28, 0x62])
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
        case "reserved-bit":
            let buffer = context.channel.allocator.buffer(string: "x")
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, rsv2: true, opcode: .text, data: buffer)), promise: nil)
        case "ping":
            context.writeAndFlush(
                wrapOutboundOut(
                    WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(string: "srv"))),
                promise: nil)
        case "headers":
            send(.text, text: headerLines, context: context)
        default:
            send(.text, text: "unknown command", context: context)
        }
    }
}
