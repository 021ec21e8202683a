import ConnectFutures
import Foundation

/// Sends ``Connector`` requests and hands back `Future`s of their results.
///
/// ```swift
/// Connect.default.request(TodoConnector.get(id: 123), debugResponse: true)
///     .decoded(toType: Todo.self)
///     .observe { result in
///         switch result {
///         case .success(let todo): print(todo)
///         case .failure(let error): print(error)
///         }
///     }
/// ```
/// Use ``default`` or make your own with a middleware, an error handler and a configuration,
/// each optional: `Connect(errorHandler: MyHandler())`.
///
/// A request whose status is in ``ConnectConfiguration/acceptedStatusCodes`` succeeds; any
/// other goes to the error handler, whose error the future fails with. Results arrive on
/// ``ConnectConfiguration/callbackQueue``. A request in flight keeps what it needs alive: a
/// `Connect` released before its requests finish does not cancel them.
public final class Connect: Sendable {
    /// A shared instance with the default middleware, error handler and configuration.
    public static let `default` = Connect()

    /// Adapts each request before it is sent and decides on retries.
    public let middleware: any ConnectMiddlewareProtocol
    /// Turns failed responses into errors.
    public let errorHandler: any ErrorHandlerProtocol
    /// The settings every request uses.
    public let configuration: ConnectConfiguration
    /// What carries the requests.
    public let transport: any Transport

    let builder: UncheckedRequestBuilder
    /// The middleware does nothing at all: requests take the direct path. Decided once, not with
    /// a dynamic cast per request.
    let skipsMiddleware: Bool
    /// Shared by every future this client returns: the callback queue, `.cancelled` as the
    /// cancellation error, and decoding failures as `.decoding`.
    let context: FutureContext

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - middleware: adapts requests and decides on retries; by default neither.
    ///   - errorHandler: turns failed responses into errors; by default ``ErrorHandler``.
    ///   - configuration: timeouts, queues, limits.
    ///   - transport: what carries the requests; by default a ``CurlTransport`` made from
    ///     `configuration`.
    public init(
        middleware: any ConnectMiddlewareProtocol = ConnectMiddleware(),
        errorHandler: any ErrorHandlerProtocol = ErrorHandler(),
        configuration: ConnectConfiguration = ConnectConfiguration(),
        transport: (any Transport)? = nil
    ) {
        self.middleware = middleware
        skipsMiddleware = (middleware as? ConnectMiddleware)?.isPassthrough == true
        self.errorHandler = errorHandler
        self.configuration = configuration
        let context = FutureContext.connect(callbackQueue: configuration.callbackQueue, jsonDecoder: configuration.jsonDecoder)
        self.context = context
        self.transport = transport ?? CurlTransport(configuration: configuration, context: context)
        (transport as? MockTransport)?.adopt(configuration)
        builder = UncheckedRequestBuilder(RequestBuilder(configuration: configuration))
    }

    /// Sends the request `connector` describes; the future gives the response body.
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - debugResponse: logs the request as a runnable `curl` command and the response
    ///     (status, headers, time, the start of the body), with secrets redacted.
    public func request(_ connector: any Connector, debugResponse: Bool = false) -> Future<Data> {
        exchange(connector, debugResponse: debugResponse) { $0.body }
    }

    /// Sends the request `connector` describes; the future gives the whole response, headers
    /// and timings included.
    public func response(_ connector: any Connector, debugResponse: Bool = false) -> Future<Response> {
        exchange(connector, debugResponse: debugResponse) { $0 }
    }

    private func exchange<Output: Sendable>(
        _ connector: any Connector, debugResponse: Bool, output: @escaping @Sendable (Response) -> Output
    ) -> Future<Output> {
        let request: Request
        do {
            request = try builder.builder.build(connector)
        } catch {
            return failLater(error)
        }
        return send(request, policy: policy(for: connector), debugResponse: debugResponse, alreadyValidated: true, output: output)
    }

    func policy(for connector: any Connector) -> ExchangePolicy {
        ExchangePolicy(
            acceptedStatusCodes: connector.acceptedStatusCodes ?? configuration.acceptedStatusCodes,
            errorHandler: connector.errorHandler ?? errorHandler,
            redirects: redirectFollower(handler: connector.redirectHandler ?? configuration.redirectHandler)
        )
    }

    func redirectFollower(handler: (any RedirectHandler)?) -> RedirectFollower {
        RedirectFollower(transport: transport, maximumRedirects: configuration.maximumRedirects, handler: handler,
                         sensitiveHeaders: configuration.sensitiveHeaders, timeout: configuration.timeout)
    }

    /// Sends a request built by hand, through the same middleware, validation and error handler.
    public func send(_ request: Request, debugResponse: Bool = false) -> Future<Response> {
        let policy = ExchangePolicy(
            acceptedStatusCodes: configuration.acceptedStatusCodes,
            errorHandler: errorHandler,
            redirects: redirectFollower(handler: configuration.redirectHandler)
        )
        return send(request, policy: policy, debugResponse: debugResponse, alreadyValidated: false)
    }

    func send(_ request: Request, policy: ExchangePolicy, debugResponse: Bool, alreadyValidated: Bool) -> Future<Response> {
        send(request, policy: policy, debugResponse: debugResponse, alreadyValidated: alreadyValidated) { $0 }
    }

    /// Sends through the middleware (or straight, when there is none), validates, logs, and
    /// hands the accepted response to `output`. With no middleware and no log, validation and
    /// `output` run in the redirect step itself: the fewest future steps per request.
    func send<Output: Sendable>(
        _ request: Request, policy: ExchangePolicy, debugResponse: Bool, alreadyValidated: Bool,
        output: @escaping @Sendable (Response) -> Output
    ) -> Future<Output> {
        if !alreadyValidated {
            do {
                try request.validate()
            } catch {
                return failLater(error)
            }
        }
        let log = debugResponse || configuration.environment.logsEveryRequest ? DebugLog(configuration: configuration) : nil
        let exchange: Future<Response>
        if skipsMiddleware {
            log?.request(request)
            if log == nil {
                return policy.redirects.send(request, context: context) { response in output(try policy.check(response, of: request)) }
            }
            exchange = policy.redirects.send(request, context: context) { response in try policy.check(response, of: request) }
        } else {
            exchange = sendThroughMiddleware(request, policy: policy, log: log)
        }
        guard let log else { return exchange.map(output) }
        return exchange.always { log.outcome($0, of: request) }.map(output)
    }

    /// Cancels every request in flight, including those waiting for a retry or a token
    /// refresh; each fails with ``ConnectError/cancelled``.
    public func cancelAllRequests() {
        for request in inFlight.withLock({ Array($0.requests.values) }) {
            request.cancel()
        }
        transport.cancelAll()
    }

    /// Requests on the middleware path, which can be between transfers (adapting, backing off,
    /// waiting for a refresh) where the transport cannot see them.
    let inFlight = Locked<(nextID: UInt64, requests: [UInt64: Future<Response>])>((0, [:]))

    /// A failed future whose observers run on the callback queue, like every other result's.
    func failLater<Output: Sendable>(_ error: any Error) -> Future<Output> {
        Future(result: .failure(error), context: context)
    }
}
