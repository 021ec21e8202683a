#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Connect {
    /// Opens a WebSocket to the endpoint `connector` describes, and returns it once the opening
    /// handshake succeeded.
    ///
    /// ```swift
    /// let socket = try await connect.webSocket(ChatConnector.room("swift"))
    /// ```
    ///
    /// The handshake is a request like any other: the connector's URL (`ws://`, `wss://`,
    /// `http://` or `https://`), its headers and the configuration's defaults, the middleware's
    /// adapters (a ``TokenAuthenticator`` refreshes on a 401 and tries again) and retriers,
    /// monitors, tracing and `debugResponse`; the configuration's TLS settings and proxy carry
    /// the connection. It succeeds on 101 only: any other status goes to the error handler, and
    /// a 101 that does not complete the handshake (RFC 6455 section 4.1: the wrong
    /// `Sec-WebSocket-Accept`, a subprotocol or extension that was not offered) fails with
    /// ``TransportFailure/Kind/webSocketHandshake``. Subprotocols are offered with
    /// ``WebSocketOptions/subprotocols`` (or the request's own `Sec-WebSocket-Protocol` header);
    /// the one chosen is ``WebSocket/subprotocol``.
    ///
    /// - Parameters:
    ///   - connector: the endpoint; its method must be GET and it has no body.
    ///   - options: the largest message, the buffer for a slow reader, keep-alive pings.
    ///   - debugResponse: logs the handshake request and its answer.
    public func webSocket(
        _ connector: any Connector, options: WebSocketOptions = .default, debugResponse: Bool = false
    ) async throws -> WebSocket {
        try await openWebSocket(
            try builder.build(connector), options: options, debugResponse: debugResponse,
            errorHandler: connector.errorHandler, redirectHandler: connector.redirectHandler)
    }

    /// Opens a WebSocket with a request built by hand; see ``webSocket(_:options:debugResponse:)-(Connector,_,_)``.
    public func webSocket(
        _ request: Request, options: WebSocketOptions = .default, debugResponse: Bool = false
    ) async throws -> WebSocket {
        try await openWebSocket(request, options: options, debugResponse: debugResponse)
    }

    private func openWebSocket(
        _ request: Request, options: WebSocketOptions, debugResponse: Bool,
        errorHandler: (any ErrorHandlerProtocol)? = nil, redirectHandler: (any RedirectHandler)? = nil
    ) async throws -> WebSocket {
        guard transport is any TransferCarrier else {
            throw ConnectError.invalidRequest(
                "WebSockets need Connect's own transport or a MockTransport, not \(type(of: transport))")
        }
        if let problem = options.problem { throw ConnectError.invalidRequest("WebSocketOptions: \(problem)") }
        var request = request
        guard request.method == .get, request.body == nil else {
            throw ConnectError.invalidRequest(
                "a WebSocket opening handshake is a GET without a body, not \(request.method.rawValue)"
                    + (request.body == nil ? "" : " with a body"))
        }
        request.url = Self.handshakeURL(for: request.url)
        if !options.subprotocols.isEmpty {
            request.headers.append(
                HTTPHeader(name: "Sec-WebSocket-Protocol", value: options.subprotocols.joined(separator: ", ")))
        }
        try request.validate()
        let opening = WebSocketOpening(options: options)
        let exchange = exchange(
            acceptedStatusCodes: [101], errorHandler: errorHandler, redirectHandler: redirectHandler,
            debugResponse: debugResponse, options: .opening(opening))
        let response = try await exchange.run(request) { $0 }.value
        guard let (connection, outcome) = opening.take() else {
            throw ConnectError.transport(
                TransportFailure(
                    .webSocketHandshake, "the handshake's 101 came without a connection", requestSent: true))
        }
        return WebSocket(
            response: response, subprotocol: outcome.subprotocol,
            compression: outcome.compression.map(WebSocketCompression.init), connection: connection)
    }

    /// The handshake's URL for a WebSocket URL: `ws` becomes `http` and `wss` `https` (RFC 6455
    /// section 3: the same ports, the same request target); any other is kept.
    static func handshakeURL(for url: URL) -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.scheme = scheme == "ws" ? "http" : "https"
        return components.url ?? url
    }
}
