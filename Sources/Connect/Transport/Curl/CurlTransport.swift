import ConnectFutures
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The transport that carries requests over libcurl: one multi handle driven by one thread,
/// with connection reuse (keep-alive and HTTP/2 multiplexing), transparent decompression, and
/// TLS verification on.
///
/// ``Connect`` creates one from its configuration; build one yourself only to share it between
/// several `Connect` values.
public final class CurlTransport: StepCompletingCarrier {
    /// What each transfer takes from the configuration: limits, cookies, proxy, TLS. A class,
    /// so each transfer holds one reference rather than a copy of every field.
    final class Settings: Sendable {
        let timeout: Duration
        /// `timeout` as libcurl takes it, worked out once rather than for every transfer.
        let timeoutMilliseconds: Int
        let connectTimeout: Duration
        let maximumBodySize: Int
        let cookies: CookieStorage
        /// ``cookies`` are kept in a file, stored as a flag for the same reason as
        /// ``goesThroughProxies``.
        let keepsCookiesInAFile: Bool
        let proxy: ProxyConfiguration?
        /// The environment's proxies, when no ``proxy`` is set (see
        /// ``ConnectConfiguration/proxiesFromEnvironment``): chosen per request, by its scheme.
        let environmentProxies: EnvironmentProxies?
        let netrc: NetrcFile?
        /// A ``proxy`` or ``environmentProxies`` is set. Read for every request: a stored flag,
        /// where `proxy != nil` would copy the optional configuration, strings and all, through
        /// the runtime's generic witnesses.
        let goesThroughProxies: Bool
        /// A ``netrc`` file is set, stored as a flag for the same reason.
        let readsNetrc: Bool
        let tls: TLSConfiguration
        let httpVersion: HTTPVersionPolicy
        let connections: ConnectionSettings
        /// `connections.unixSocketPath`, read for every request.
        let unixSocketPath: String?
        /// Whether and how long a connection to an advertised alternative may take
        /// (``AlternativeServices/fallbackAfter``); `nil` when `Alt-Svc` is ignored.
        let alternativeFallback: Duration?
        /// A setting that cannot work (``ConnectConfiguration/problem``), which fails every request
        /// before it is sent.
        let problem: String?

        init(
            timeout: Duration, connectTimeout: Duration, maximumBodySize: Int, cookies: CookieStorage = .none,
            proxy: ProxyConfiguration? = nil, environmentProxies: EnvironmentProxies? = nil, netrc: NetrcFile? = nil,
            tls: TLSConfiguration = TLSConfiguration(), httpVersion: HTTPVersionPolicy = .automatic,
            connections: ConnectionSettings = ConnectionSettings(),
            alternativeServices: AlternativeServices = .ignored, problem: String? = nil
        ) {
            self.timeout = timeout
            timeoutMilliseconds = CurlTransfer.milliseconds(timeout)
            self.connectTimeout = connectTimeout
            self.maximumBodySize = maximumBodySize
            self.cookies = cookies
            if case .file = cookies { keepsCookiesInAFile = true } else { keepsCookiesInAFile = false }
            self.proxy = proxy
            self.environmentProxies = proxy == nil ? environmentProxies : nil
            self.netrc = netrc
            goesThroughProxies = self.proxy != nil || self.environmentProxies != nil
            readsNetrc = netrc != nil
            self.tls = tls
            self.httpVersion = httpVersion
            self.connections = connections
            unixSocketPath = connections.unixSocketPath
            alternativeFallback = alternativeServices.isEnabled ? alternativeServices.fallbackAfter : nil
            self.problem = problem
        }
    }

    /// The loop that drives libcurl for this transport.
    let loop: TransferLoop
    /// Whether the calling thread is one of the loop's, which drive libcurl, for tests that
    /// check where callbacks run.
    var isOnTransferThread: Bool { loop.isLoopThread }
    let settings: Settings
    let context: FutureContext

    /// Creates a transport with its own transfer thread.
    public convenience init(configuration: ConnectConfiguration = ConnectConfiguration()) {
        self.init(configuration: configuration, context: .connect(configuration))
    }

    init(configuration: ConnectConfiguration, context: FutureContext) {
        settings = Settings(
            timeout: configuration.timeout,
            connectTimeout: configuration.connectTimeout,
            maximumBodySize: configuration.maximumResponseBodySize,
            cookies: configuration.cookies,
            proxy: configuration.proxy,
            environmentProxies: configuration.proxiesFromEnvironment,
            netrc: configuration.netrc,
            tls: configuration.tls,
            httpVersion: configuration.httpVersion,
            connections: configuration.connections,
            alternativeServices: configuration.alternativeServices,
            problem: configuration.problem
        )
        self.context = context
        loop = TransferLoop(
            maximumConnectionsPerHost: configuration.maximumConnectionsPerHost, callbackQueue: context.callbackQueue,
            cookies: configuration.cookies,
            alternativeServices: configuration.alternativeServices.problem == nil
                ? AlternativeServiceCache(configuration.alternativeServices) : nil)
    }

    deinit {
        loop.enqueue(.stop)
    }

    /// Sends `request` once; the future's callbacks run on the configuration's callback queue.
    public func send(_ request: Request) -> Future<Response> {
        send(request, options: nil)
    }

    func send(_ request: Request, options: TransferOptions?) -> Future<Response> {
        let (promise, future) = PendingStep.making(context: context, transform: PassThrough<Response>())
        send(request, options: options, completing: promise)
        return future
    }

    /// Sends `request` once, and completes `step` with its response where the transfer
    /// completes, on the callback queue. The context binds the step's future to the callback
    /// queue: the transfer thread completes it, and every observer and step runs on the queue,
    /// never on the transfer thread.
    func send(
        _ request: consuming Request, options: consuming TransferOptions?,
        completing step: consuming PendingStep<Response>
    ) {
        let transfer = CurlTransfer(request: request, options: options, transport: self, promise: step)
        transfer.prepareProgressReports()
        transfer.stopsWhenCancelled()
        if let streamBuffer = transfer.options?.streamBuffer {
            // Weak: the buffer outlives the transfer in the consumer's hands.
            streamBuffer.setResumer { [weak transfer, loop] in
                if let transfer { loop.enqueue(.resume(transfer)) }
            }
        }
        // The transfer's last use here: its reference moves into the command.
        loop.enqueue(.start(consume transfer))
    }

    /// Stops every transfer in flight; each fails with ``ConnectError/cancelled``.
    public func cancelAll() {
        loop.enqueue(.cancelAll)
    }
}
