import ConnectFutures
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport that answers from canned responses, for tests and previews (NetworkKit's mocks).
///
/// ```swift
/// let mock = MockTransport()
/// mock.register(.json(#"{"userId":1,"id":1,"title":"Mocked","completed":false}"#), for: TodoConnector.get(id: 1))
/// mock.register(.status(503), .json("{}"), when: { $0.url.path == "/health" })   // 503, then 200s
/// let connect = Connect(transport: mock)
/// let todo = try await connect.request(TodoConnector.get(id: 1)).decoded(toType: Todo.self).value
/// #expect(mock.requests.count == 1)
/// ```
/// Everything above the transport runs unchanged: adapters, retries, the error handler,
/// decoding, downloads to files, streams. A request with no registered response fails with a
/// ``ConnectError/transport(_:)`` failure of kind ``TransportFailure/Kind/noMockResponse`` (it
/// never crashes).
public final class MockTransport: TransferCarrier {
    /// How responses arrive, unless a response sets its own ``MockResponse/delay``.
    public enum Behavior: Sendable, Hashable {
        /// At once.
        case immediate
        /// After `Duration`; cancelling the request during the wait fails it at once.
        case delayed(Duration)
    }

    private struct Registration {
        let matches: @Sendable (Request) -> Bool
        var responses: [MockResponse]
    }

    private let behavior: Behavior
    private let state = Locked<(registrations: [Registration], requests: [Request])>(([], []))
    /// The request builder of the `Connect` that sends through this mock (its environment,
    /// default query): requests for a registered connector are matched as that client builds them.
    private let builder = Locked(UncheckedRequestBuilder(RequestBuilder(configuration: ConnectConfiguration())))

    /// Creates a mock that answers with `behavior`.
    public init(behavior: Behavior = .immediate) {
        self.behavior = behavior
    }

    /// Every request received so far, in order, as it reached the transport (after adapters).
    public var requests: [Request] {
        state.withLock { $0.requests }
    }

    /// Answers the requests for `connector`, as the client that sends through this mock builds
    /// them (its environment included): the same method, scheme, host, port and path. With
    /// `responses` in order, the last one again once they run out.
    public func register(_ responses: MockResponse..., for connector: any Connector) {
        let connector = UncheckedConnector(connector)
        register(responses) { [weak self] request in
            guard let self else { return false }
            guard let expected = try? builder.withLock({ $0 }).build(connector.connector),
                request.method == expected.method
            else { return false }
            // A WebSocket's handshake goes out on its http(s) URL (see `Connect.handshakeURL(for:)`).
            let (a, b) = (request.url, Connect.handshakeURL(for: expected.url))
            return a.scheme == b.scheme && a.host == b.host && a.port == b.port && a.path == b.path
        }
    }

    /// Called by the `Connect` that sends through this mock, with its request builder.
    func adopt(_ builder: UncheckedRequestBuilder) {
        self.builder.withLock { $0 = builder }
    }

    /// Answers the requests `matches` accepts: with `responses` in order, the last one again once
    /// they run out. Registrations are tried in the order they were made.
    public func register(_ responses: MockResponse..., when matches: @escaping @Sendable (Request) -> Bool) {
        register(responses, matches)
    }

    /// Forgets every registration and recorded request.
    public func reset() {
        state.withLock { $0 = ([], []) }
    }

    private func register(_ responses: [MockResponse], _ matches: @escaping @Sendable (Request) -> Bool) {
        guard !responses.isEmpty else { return }
        state.withLock { $0.registrations.append(Registration(matches: matches, responses: responses)) }
    }

    /// Answers `request` from the registrations: the first that matches it, in order.
    public func send(_ request: Request) -> Future<Response> {
        send(request, options: nil)
    }

    func send(_ request: Request, options: TransferOptions?) -> Future<Response> {
        let mock = state.withLock { state -> MockResponse? in
            state.requests.append(request)
            guard let index = state.registrations.firstIndex(where: { $0.matches(request) }) else { return nil }
            let responses = state.registrations[index].responses
            if responses.count > 1 { state.registrations[index].responses.removeFirst() }
            return responses[0]
        }
        let promise = Promise<Response>(cancellationError: ConnectError.cancelled)
        guard let mock else {
            let message =
                "MockTransport has no response for \(request.method) \(request.url.absoluteString); register one with register(_:for:) or register(_:when:)"
            promise.fail(
                ConnectError.transport(TransportFailure(kind: .noMockResponse, message: message, requestSent: false)))
            return promise.future
        }
        let delay: Duration? =
            mock.delay
            ?? {
                if case .delayed(let duration) = behavior { return duration }
                return nil
            }()
        guard let delay, delay > .zero else {
            promise.complete(Self.outcome(of: mock, for: request, options: options))
            return promise.future
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval) {
            guard !promise.isCompleted else { return }
            promise.complete(Self.outcome(of: mock, for: request, options: options))
        }
        return promise.future
    }

    /// Mocks have nothing in flight to stop; pending delayed responses fail with `.cancelled`
    /// when their futures are cancelled.
    public func cancelAll() {}

    /// The 101 of a WebSocket's opening handshake, with the peer that runs `conversation` left
    /// in `opening` for the exchange; a failure for a request that opens no WebSocket, or that did
    /// not offer `subprotocol`.
    private static func openWebSocket(
        for request: Request, opening: WebSocketOpening?, subprotocol: String?, headers: [HTTPHeader],
        _ conversation: @escaping @Sendable (MockWebSocketPeer) async throws -> Void
    ) -> Result<Response, any Error> {
        guard let opening else {
            return .failure(
                ConnectError.transport(
                    TransportFailure(
                        kind: .noMockResponse,
                        message:
                            "MockResponse.webSocket answers a WebSocket's opening handshake (Connect.webSocket) only, not the plain request \(request.method) \(request.url.absoluteString)",
                        requestSent: false)))
        }
        var answer = [HTTPHeader(name: "Upgrade", value: "websocket"), HTTPHeader(name: "Connection", value: "Upgrade")]
        if let subprotocol {
            guard WebSocketHandshake.offeredSubprotocols(in: request.headers).contains(subprotocol) else {
                return .failure(
                    ConnectError.transport(
                        TransportFailure(
                            kind: .webSocketHandshake,
                            message:
                                "WebSocket handshake failed: the mock chose the subprotocol \(subprotocol), which the request did not offer",
                            requestSent: true)))
            }
            answer.append(HTTPHeader(name: "Sec-WebSocket-Protocol", value: subprotocol))
        }
        let peer = MockWebSocketPeer(request: request, receiveBufferSize: opening.options.receiveBufferSize)
        opening.opened(peer, WebSocketHandshake.Outcome(subprotocol: subprotocol, compression: nil))
        peer.start(conversation)
        return .success(Response(statusCode: 101, headers: answer + headers, url: request.url))
    }

    /// The response, delivered where the request asked (memory, a file, a stream).
    private static func outcome(
        of mock: MockResponse, for request: Request, options: TransferOptions?
    ) -> Result<Response, any Error> {
        switch mock.outcome {
        case .failure(let error):
            return .failure(error)
        case .webSocket(let subprotocol, let headers, let conversation):
            return openWebSocket(
                for: request, opening: options?.webSocket, subprotocol: subprotocol, headers: headers, conversation)
        case .response(let status, let headers, let body):
            var fileURL: URL?
            var memoryBody = body
            let success = (200..<300).contains(status)
            if success, case .file(let url, _)? = options?.destination {
                do {
                    try body.write(to: url, options: .atomic)
                } catch {
                    return .failure(
                        ConnectError.transport(
                            TransportFailure(
                                kind: .localFile, message: "could not write to \(url.path): \(error)", requestSent: true
                            )))
                }
                fileURL = url
                memoryBody = Data()
            }
            let response = Response(
                statusCode: status, headers: headers, body: memoryBody, url: request.url, fileURL: fileURL)
            if success, let stream = options?.streamBuffer, !body.isEmpty {
                body.withUnsafeBytes { _ = stream.offer($0, head: response) }
                return .success(Response(statusCode: status, headers: headers, url: request.url))
            }
            if let progress = options?.progress {
                progress.report(
                    TransferProgress(
                        bytesSent: Int64(request.body?.count ?? 0),
                        totalBytesToSend: request.body?.count.map(Int64.init),
                        bytesReceived: Int64(body.count), totalBytesToReceive: Int64(body.count)))
            }
            return .success(response)
        }
    }
}
