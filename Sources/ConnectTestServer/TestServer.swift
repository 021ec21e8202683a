import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ConnectFutures

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
public final class TestServer: Sendable {
    public typealias Handler = @Sendable (RecordedRequest) -> TestResponse

    private let channel: any Channel
    private let state: ServerState

    /// The port it listens on.
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { state.requests }

    /// How many connections were accepted so far.
    public var connectionCount: Int { state.connectionCount }

    /// Starts a server that answers each request with `handler`'s response.
    public init(handler: @escaping Handler) throws {
        let state = ServerState(handler: handler)
        self.state = state
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let connectionID = state.connectionOpened()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(TestServerHandler(state: state, connectionID: connectionID))
                }
            }
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening and closes every connection.
    public func shutdown() {
        try? channel.close().wait()
        state.closeAll()
    }

    deinit {
        channel.close(promise: nil)
        state.closeAll()
    }
}

/// The server's shared, locked state.
final class ServerState: Sendable {
    private struct Inner {
        var requests: [RecordedRequest] = []
        var connections = 0
        var openChannels: [ObjectIdentifier: any Channel] = [:]
    }

    let handler: TestServer.Handler
    private let inner = Locked(Inner())

    init(handler: @escaping TestServer.Handler) {
        self.handler = handler
    }

    var requests: [RecordedRequest] { inner.withLock { $0.requests } }
    var connectionCount: Int { inner.withLock { $0.connections } }

    func connectionOpened() -> Int {
        inner.withLock {
            $0.connections += 1
            return $0.connections
        }
    }

    func record(_ request: RecordedRequest) {
        inner.withLock { $0.requests.append(request) }
    }

    func track(_ channel: any Channel) {
        inner.withLock { $0.openChannels[ObjectIdentifier(channel)] = channel }
    }

    func untrack(_ channel: any Channel) {
        _ = inner.withLock { $0.openChannels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func closeAll() {
        let channels = inner.withLock { Array($0.openChannels.values) }
        for channel in channels { channel.close(promise: nil) }
    }
}

final class TestServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: ServerState
    private let connectionID: Int
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(state: ServerState, connectionID: Int) {
        self.state = state
        self.connectionID = connectionID
    }

    func channelActive(context: ChannelHandlerContext) {
        state.track(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.untrack(context.channel)
        context.fireChannelInactive()
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
            let response = state.handler(recorded)
            respond(response, keepAlive: requestHead.isKeepAlive, isHead: requestHead.method == .HEAD, context: context)
        }
    }

    private func respond(_ response: TestResponse, keepAlive: Bool, isHead: Bool, context: ChannelHandlerContext) {
        switch response.behavior {
        case .respond:
            write(response, keepAlive: keepAlive, isHead: isHead, context: context)
        case .delay(let duration):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(duration.clampedNanoseconds)) {
                let (handler, context) = loopBound.value
                handler.write(response, keepAlive: keepAlive, isHead: isHead, context: context)
            }
        case .reset:
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            let channel = context.channel
            if let options = channel as? any SocketOptionProvider {
                options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
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
        }
    }

    private func trickle(_ body: Data, from offset: Int, chunk: Int, every interval: Duration, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard offset < body.count else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let end = min(offset + chunk, body.count)
        let buffer = context.channel.allocator.buffer(bytes: body[offset..<end])
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(interval.clampedNanoseconds)) {
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
