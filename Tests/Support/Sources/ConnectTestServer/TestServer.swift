import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOConcurrencyHelpers

/// An HTTP/1.1 server on 127.0.0.1 and a free port, running in this process.
///
/// ```swift
/// let server = try TestServer { request in .json(#"{"id":1}"#) }
/// defer { server.shutdown() }
/// // … send requests to server.baseURL …
/// #expect(server.requests.count == 1)
/// ```
/// It records every request and connection, and can misbehave on purpose (see
/// ``TestResponse/Behavior``).
public final class TestServer: LocalServer, @unchecked Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (RecordedRequest) -> TestResponse

    /// Starts a server that answers each request with `handler`'s response, on a free port or
    /// on a Unix domain socket at `unixSocketPath`.
    public init(unixSocketPath: String? = nil, handler: @escaping Handler) throws {
        try super.init(unixSocketPath: unixSocketPath) { state, channel, connectionID in
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(
                TestServerHandler(state: state, handler: handler, connectionID: connectionID))
        }
    }
}

final class TestServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: ServerState
    private let handler: TestServer.Handler
    private let connectionID: Int
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(state: ServerState, handler: @escaping TestServer.Handler, connectionID: Int) {
        self.state = state
        self.handler = handler
        self.connectionID = connectionID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let requestHead = head else { return }
            let recorded = RecordedRequest(
                method: requestHead.method.rawValue,
                uri: requestHead.uri,
                headers: requestHead.headers.map { ($0.name, $0.value) },
                body: Data(body.readableBytesView),
                connectionID: connectionID
            )
            state.record(recorded)
            let response = handler(recorded)
            respond(response, keepAlive: requestHead.isKeepAlive, isHead: requestHead.method == .HEAD, context: context)
        }
    }

    private func respond(_ response: TestResponse, keepAlive: Bool, isHead: Bool, context: ChannelHandlerContext) {
        switch response.behavior {
        case .respond:
            write(response, keepAlive: keepAlive, isHead: isHead, context: context)
        case .delay(let duration):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: TimeAmount(duration)) {
                let (handler, context) = loopBound.value
                handler.write(response, keepAlive: keepAlive, isHead: isHead, context: context)
            }
        case .reset:
            context.channel.reset()
        case .stall:
            break
        case .truncate(let count):
            writeHead(response, context: context)
            writePart(of: response.body, count: count, context: context)
            context.flush()
            context.close(promise: nil)
        case .stallAfter(let count):
            writeHead(response, context: context)
            writePart(of: response.body, count: count, context: context)
            context.flush()
        case .trickle(let chunk, let interval):
            writeHead(response, context: context)
            context.flush()
            trickle(response.body, from: 0, chunk: max(chunk, 1), every: interval, context: context)
        case .holdBody(let gate):
            writeHead(response, context: context)
            context.flush()
            sendBody(response.body, whenOpen: gate, context: context)
        case .cutBody(let gate):
            writeHead(response, context: context)
            context.flush()
            sendBody(nil, whenOpen: gate, context: context)
        }
    }

    /// Writes `body` and ends the response once `gate` is open, looking every millisecond; with
    /// no body, closes the connection instead.
    private func sendBody(_ body: Data?, whenOpen gate: TestGate, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard gate.isOpen else {
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(1)) {
                let (handler, context) = loopBound.value
                handler.sendBody(body, whenOpen: gate, context: context)
            }
            return
        }
        guard let body else {
            context.close(promise: nil)
            return
        }
        let buffer = context.channel.allocator.buffer(bytes: body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func trickle(
        _ body: Data, from offset: Int, chunk: Int, every interval: Duration, context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        guard offset < body.count else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let end = min(offset + chunk, body.count)
        let buffer = context.channel.allocator.buffer(bytes: body[offset..<end])
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(interval)) {
            let (handler, context) = loopBound.value
            handler.trickle(body, from: end, chunk: chunk, every: interval, context: context)
        }
    }

    private func writeHead(_ response: TestResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        if !headers.contains(name: "Content-Length"), !headers.contains(name: "Transfer-Encoding") {
            headers.add(name: "Content-Length", value: "\(response.body.count)")
        }
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    private func writePart(of body: Data, count: Int, context: ChannelHandlerContext) {
        guard count > 0 else { return }
        let buffer = context.channel.allocator.buffer(bytes: body.prefix(count))
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }

    private func write(_ response: TestResponse, keepAlive: Bool, isHead: Bool, context: ChannelHandlerContext) {
        writeHead(response, context: context)
        if !isHead, !response.body.isEmpty {
            writePart(of: response.body, count: response.body.count, context: context)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
