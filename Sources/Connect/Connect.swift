import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tracing

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
/// ``ConnectConfiguration/callbackQueue`` (or on the transfer thread, see
/// ``ConnectConfiguration/runsCallbacksOnTransferThread``). A request in flight keeps what it needs alive: a
/// `Connect` released before its requests finish does not cancel them.
///
/// Every public type of the module is also a member of this class, so that `Connect.Request`,
/// `Connect.Response` and `Connect.HTTPMethod` name Connect's types in an app that has types of
/// those names (as Vapor and Hummingbird apps do), where `Connect` is this class rather than the
/// module.
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
    /// Runs the tasks that prefer it on ``ConnectConfiguration/callbackQueue``, where this
    /// client's futures complete, so that a task awaiting them continues there, in turn with the
    /// client's observers on a serial queue: pass it to `withTaskExecutorPreference(_:operation:)`
    /// or `Task(executorPreference:)`. See ``CallbackQueueExecutor``.
    public let callbackExecutor: CallbackQueueExecutor

    /// The tracer of the configuration or the one bootstrapped; `nil` when neither traces.
    let tracer: (any Tracer)?
    let builder: UncheckedRequestBuilder
    /// What every exchange of this client shares.
    let client: SharedClientState
    /// What every hop of this client's requests passes through: tracing, the cache, the
    /// transport (see ``HopChain``), declared once.
    let hops: HopChain
    /// The exchange policy of every request without rules of its own: built once, since it
    /// depends only on the configuration.
    let sharedPolicy: ExchangePolicy
    /// Shared by every future this client returns: the callback queue, `.cancelled` as the
    /// cancellation error, and decoding failures as `.decoding`.
    var context: FutureContext { client.context }

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
        self.errorHandler = errorHandler
        self.configuration = configuration
        callbackExecutor = CallbackQueueExecutor(queue: configuration.callbackQueue)
        let tracer = configuration.tracer ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
        let context = FutureContext.connect(configuration)
        let transport = transport ?? CurlTransport(configuration: configuration, context: context)
        self.transport = transport
        builder = UncheckedRequestBuilder(RequestBuilder(configuration: configuration))
        (transport as? any TransferCarrier)?.adopt(builder)
        client = SharedClientState(transport: transport, middleware: middleware, context: context)
        hops = HopChain(
            transport: transport, tracer: self.tracer, cache: configuration.cache,
            cachePolicy: configuration.cachePolicy,
            coalescesIdenticalRequests: configuration.coalescesIdenticalRequests, timeout: configuration.timeout)
        sharedPolicy = Self.policy(configuration: configuration, errorHandler: errorHandler, hops: hops)
    }

    /// Sends the request `connector` describes; the future gives the response body.
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - debugResponse: logs the request as a runnable `curl` command and the response
    ///     (status, headers, time, the start of the body), with secrets redacted.
    public func request(_ connector: any Connector, debugResponse: Bool = false) -> Future<Data> {
        start(connector, debugResponse: debugResponse) { $0.body }
    }

    /// Sends the request `connector` describes; the future gives the whole response, headers
    /// and timings included.
    public func response(_ connector: any Connector, debugResponse: Bool = false) -> Future<Response> {
        start(connector, debugResponse: debugResponse) { $0 }
    }

    /// Sends a request built by hand, through the same middleware, validation and error handler.
    public func send(_ request: Request, debugResponse: Bool = false) -> Future<Response> {
        send(request, debugResponse: debugResponse, options: nil)
    }

    /// `send(_:debugResponse:)` with the transfer's ``TransferOptions``.
    func send(_ request: Request, debugResponse: Bool, options: TransferOptions?) -> Future<Response> {
        var request = request
        do {
            try request.validate()
        } catch {
            return failLater(error)
        }
        request.headers.addBodyHeaders(of: request.body)
        return exchange(debugResponse: debugResponse, options: options).run(request) { $0 }
    }

    /// Builds the request `connector` describes (and lets `prepare` add to it, e.g. a file
    /// body), then runs its exchange with `options`; a request that cannot be built fails the
    /// future on the callback queue.
    func start<Output: Sendable>(
        _ connector: any Connector, debugResponse: Bool,
        prepare: (inout Request) throws -> Void = { _ in },
        options: TransferOptions? = nil,
        output: @escaping @Sendable (Response) -> Output
    ) -> Future<Output> {
        var request: Request
        do {
            request = try builder.build(connector)
            try prepare(&request)
        } catch {
            return failLater(error)
        }
        return exchange(for: connector, debugResponse: debugResponse, options: options).run(request, output: output)
    }

    /// The exchange for a request to `connector`: its accepted codes, error handler and redirect
    /// rules, the connector's own where it has them.
    func exchange(for connector: any Connector, debugResponse: Bool, options: TransferOptions? = nil) -> Exchange {
        exchange(
            acceptedStatusCodes: connector.acceptedStatusCodes, errorHandler: connector.errorHandler,
            redirectHandler: connector.redirectHandler, debugResponse: debugResponse, options: options)
    }

    /// The exchange for a request with these rules (none for a request built by hand), the
    /// client's own where a rule is `nil`. The connector's rules come in as values rather than
    /// the connector as an optional, which would copy it for each rule read.
    func exchange(
        acceptedStatusCodes: AcceptedStatusCodes? = nil,
        errorHandler connectorErrorHandler: (any ErrorHandlerProtocol)? = nil,
        redirectHandler: (any RedirectHandler)? = nil, debugResponse: Bool, options: TransferOptions? = nil
    ) -> Exchange {
        let policy: ExchangePolicy
        if acceptedStatusCodes == nil, connectorErrorHandler == nil, redirectHandler == nil {
            policy = sharedPolicy
        } else {
            policy = Self.policy(
                configuration: configuration, errorHandler: connectorErrorHandler ?? errorHandler, hops: hops,
                acceptedStatusCodes: acceptedStatusCodes, redirectHandler: redirectHandler)
        }
        let log =
            debugResponse || configuration.environment.logsEveryRequest ? DebugLog(configuration: configuration) : nil
        // Traced hops are children of the caller's span, read here, where the caller is.
        let traceParent = tracer == nil ? nil : ServiceContext.current ?? .topLevel
        return Exchange(client: client, policy: policy, log: log, options: options, traceParent: traceParent)
    }

    /// The policy of a request with these rules, the configuration's where a rule is `nil`, its
    /// hops through the client's `hops`.
    static func policy(
        configuration: ConnectConfiguration, errorHandler: any ErrorHandlerProtocol, hops: HopChain,
        acceptedStatusCodes: AcceptedStatusCodes? = nil, redirectHandler: (any RedirectHandler)? = nil
    ) -> ExchangePolicy {
        ExchangePolicy(
            acceptedStatusCodes: acceptedStatusCodes ?? configuration.acceptedStatusCodes,
            errorHandler: errorHandler,
            redirects: RedirectFollower(
                chain: hops, maximumRedirects: configuration.maximumRedirects,
                handler: redirectHandler ?? configuration.redirectHandler,
                sensitiveHeaders: configuration.sensitiveHeaders, timeout: configuration.timeout)
        )
    }

    /// Cancels every request in flight, including those waiting for a retry or a token
    /// refresh; each fails with ``ConnectError/cancelled``.
    public func cancelAllRequests() {
        client.cancelAll()
    }

    /// A failed future whose observers run on the callback queue, like every other result's.
    /// Out of line: it sits on the error path of every request's start.
    @inline(never)
    func failLater<Output: Sendable>(_ error: any Error) -> Future<Output> {
        Future(result: .failure(error), context: context)
    }
}
