internal import ConnectWire
import CCurl
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

/// One exchange on the transfer thread: the easy handle's options, and the state its C callbacks
/// fill in (status, headers, body).
///
/// Its roles, one file each: setting the options (`CurlTransfer+Options`), taking what the
/// callbacks hand over (`CurlTransfer+Receiving`, where libcurl's C callbacks come in), the
/// connection libcurl chooses (`CurlTransfer+Connections`, deciding by ``SharedConnectionOpenings``
/// and ``PriorKnowledgeConnections``), and the ending (`CurlTransfer+Ending`). What the transfer
/// has seen and what it does next is ``TransferState``, a value each callback and the end are
/// events on: this class holds the resources and runs its actions.
///
/// `@unchecked Sendable`: created on the caller's thread, then touched only by the transfer
/// thread (options, callbacks, completion); the promise is itself thread-safe.
final class CurlTransfer: PromiseCancellationObserver, @unchecked Sendable {
    let request: Request
    /// Its file destination, progress handler or stream; `nil` for a request into memory.
    let options: TransferOptions?
    /// Where the response goes: the request's step (its redirects, status check and output, or
    /// nothing for a plain `send`), completed once, by the transfer loop (see ``CompletionHandOff``).
    let promise: PendingStep<Response>
    /// The transport that sent it, held while the transfer lives: its settings and loop are
    /// reached through it, and releasing the last reference to a `Connect` never cancels the
    /// requests it started (the transport, and so its thread, outlives them). The transport's
    /// last reference may go with a finished transfer's, on whichever thread that is: its
    /// `deinit` only queues a stop.
    let transport: CurlTransport
    /// What the transfer takes from the configuration: limits, cookies, proxy, TLS.
    var settings: CurlTransport.Settings { transport.settings }
    /// The loop that runs the transfer; cancellations of the promise are sent to it.
    var loop: TransferLoop { transport.loop }

    // `@exclusivity(unchecked)` on the state below: see the type's comment; the transfer thread
    // touches it one access at a time, so the runtime's dynamic checks (a thread-local lookup
    // per access, on every header line and body chunk) would find nothing.
    /// What the transfer has seen of its answer and its connection, and what it does next: the
    /// callbacks and the end are events on it (see ``TransferState``).
    @exclusivity(unchecked) var state: TransferState
    /// The header lines and body received, from the transfer loop's pool; set when the transfer
    /// starts, handed on when it succeeds.
    @exclusivity(unchecked) var received: ResponseBuffers?
    /// Decodes a chunked or compressed body (gzip, deflate, br, zstd); see ``BodyDecoder``.
    @exclusivity(unchecked) var decoder: BodyDecoder?
    /// What a full stream did not take of the decoded body while libcurl is paused.
    @exclusivity(unchecked) var decoding = PausableDecoding()
    /// The Unix domain socket this transfer's connections go through when the request names
    /// one itself (an `http+unix` URL, ``Request/unixSocketPath``), set with its options.
    @exclusivity(unchecked) var ownUnixSocketPath: String?
    /// The advertised HTTP/3 alternative the transfer goes to (`Alt-Svc`), set with its
    /// options; `nil` once it failed and the transfer went to the origin instead.
    @exclusivity(unchecked) var alternativeRoute: AlternativeRoute?
    /// Its standing with the transport's connection tracker (see ``TransferConnection``).
    @exclusivity(unchecked) var connection = TransferConnection()
    /// When the transfer first went to libcurl: set when it first starts over or times out
    /// (see ``timeLeft(on:)``), so that a request that runs once never reads the clock for it.
    @exclusivity(unchecked) var firstAttemptStarted: MonotonicInstant?
    /// The handle the transfer runs on, set with its options. Unowned: the handle holds the
    /// transfer while it runs, and callbacks come only then.
    @exclusivity(unchecked) unowned(unsafe) var runningHandle: CurlEasyHandle?
    /// The request body's bytes, from memory or disk.
    @exclusivity(unchecked) var bodyReader: BodyReader?
    /// For a request with a body: the handle it runs on, to ask how much of the body went out.
    /// Unowned: the handle holds the transfer while it runs, and callbacks come only then.
    @exclusivity(unchecked) unowned(unsafe) var uploadingHandle: CurlEasyHandle?
    /// A multipart body, built with libcurl's MIME API on the easy handle.
    @exclusivity(unchecked) var mime: OpaquePointer?
    /// Where a 2xx body is written, for file destinations.
    @exclusivity(unchecked) var sink: FileSink?
    /// What a resumable download asks beyond the request: its range and headers.
    @exclusivity(unchecked) var resume: ResumeRequest?
    /// Progress reporting, for requests with a handler: updates go to this serial queue (which
    /// targets the callback queue) so they arrive in order.
    @exclusivity(unchecked) var progressQueue: DispatchQueue?
    /// The figures libcurl reported, and when the app last heard of them.
    @exclusivity(unchecked) var progress = ProgressReports()
    /// Where the running libcurl keeps a freed header across a handle's transfers, the head
    /// lines the write callback sees before libcurl stores them (see ``HeadScreen``); set when
    /// the transfer starts, never open elsewhere.
    @exclusivity(unchecked) var headScreen = HeadScreen(enabled: false)

    // Inlined into its one caller, `CurlTransport.send`, so that the arguments move into the
    // stored properties: called, it takes them borrowed, and the caller retains each for the call
    // and releases it after, on top of the stores' own retains.
    @inline(__always)
    init(request: Request, options: TransferOptions?, transport: CurlTransport, promise: PendingStep<Response>) {
        self.request = request
        self.options = options
        self.transport = transport
        self.promise = promise
        state = TransferState(
            method: request.method,
            isRepeatable: request.mayBeRepeated,
            bodyIsOneTimeStream: request.body?.isReplayable == false)
    }

    /// Has the future's cancellation stop the transfer. Read here from `self`, the promise is
    /// borrowed for the call; read by a caller from the transfer's property, it is retained and
    /// released around it.
    func stopsWhenCancelled() {
        promise.onCancel(notifying: self)
    }

    /// Makes the serial queue the transfer's progress reports go through, in order, to the
    /// callback queue, if its request has a progress handler. Called by the sender before the
    /// transfer starts: checked in `init`, the branch kept the arguments retained across it.
    func prepareProgressReports() {
        if _slowPath(options?.progress != nil) { makeProgressQueue() }
    }

    /// Out of line: few requests report progress.
    @inline(never)
    func makeProgressQueue() {
        progressQueue = DispatchQueue(label: "connect.progress", target: transport.context.callbackQueue)
    }

    deinit {
        curl_mime_free(mime)
        promise.abandonIfPending()
    }

    /// The future was cancelled: stop the transfer (on the transfer thread).
    func promiseWasCancelled() {
        loop.enqueue(.cancel(self))
    }

    /// A request into memory with nothing but its method, headers and a body in memory: no
    /// file, multipart or streamed body, no file destination, range, progress or stream. A
    /// handle that ran one keeps its options for the next (see
    /// ``CurlEasyHandle/holdsPlainSetup``): resetting the handle and setting again the options
    /// every transfer of a transport shares would be most of the per-request option work. The
    /// method and body options one leaves are undone by the next (see
    /// ``CurlEasyHandle/carriesMethodOptions``).
    ///
    /// Not with a cookie file: a handle that keeps `CURLOPT_COOKIEJAR` writes the jar again when
    /// it is cleaned up, later and on the transfer thread, where a reset handle does not; a new
    /// client reading the same file could then read it half written.
    ///
    /// Not with a socket or connect-to entries of the request's own (``Request/hasOwnRoute``, or
    /// an `http+unix` URL, known once ``configure(_:again:)`` read it: see ``ownUnixSocketPath``).
    var isPlain: Bool {
        options == nil && request.hasNoCredentialsAndAtMostADataBody && !request.hasOwnRoute
            && ownUnixSocketPath == nil && !settings.keepsCookiesInAFile
    }

    /// The Unix domain socket this transfer's connections go through: the request's own, else
    /// the configuration's; `nil` over TCP.
    var unixSocketPath: String? { ownUnixSocketPath ?? settings.unixSocketPath }

    /// The key this transfer's connections are shared by (see ``origin(of:)``): through a socket
    /// of the request's own, the socket's path is part of it, so that connections through two
    /// sockets, or through a socket and over TCP, are never taken for one another's.
    func connectionOrigin() -> String {
        let url = request.url.absoluteString
        guard let ownUnixSocketPath else { return Self.origin(of: url) }
        return "unix:\(ownUnixSocketPath) \(Self.origin(of: UnixSocketURL(url)?.transferURL ?? url))"
    }

    /// Whether every answer this transfer reads comes as HTTP/2 frames: then a handle that ran
    /// a transfer before is safe for it on every libcurl (see
    /// ``LibcurlDefects/answersComeAsHTTP2FramesOnly(_:isHTTPS:throughProxy:opensWebSocket:)``).
    var receivesHTTP2FramesOnly: Bool {
        let version = (request.httpVersion ?? settings.httpVersion).choice
        // The URL is read only for h2c: the common case stops at the first test.
        return version == .http2WithPriorKnowledge
            && LibcurlDefects.answersComeAsHTTP2FramesOnly(
                version, isHTTPS: Self.isHTTPS(request.url.absoluteString),
                throughProxy: settings.goesThroughProxies,
                opensWebSocket: options?.webSocket != nil)
    }

    /// Whether the head lines of this transfer's answers can be screened in the write callback
    /// (see ``HeadScreen``), which makes it safe on a handle that ran a transfer before where the
    /// running libcurl ``LibcurlDefects/keepsFreedHeaderAcrossTransfers``, as a transfer that
    /// ``receivesHTTP2FramesOnly`` is. libcurl reads its answers as one exchange, interim heads, a final
    /// head and its body. A plain transfer (no credentials, stream or file), so no challenge
    /// that libcurl answers itself after dropping a body; no credentials from a netrc file
    /// either; no proxy, which answers `CONNECT` with a head of its own; and no h2c, which
    /// libcurl may ask for with an upgrade, whose `101` another head follows.
    var screensHeads: Bool {
        isPlain && !settings.goesThroughProxies && !settings.readsNetrc
            && (request.httpVersion ?? settings.httpVersion).choice != .http2WithPriorKnowledge
    }

    /// A plain GET: it sets no method or body options.
    var isPlainGet: Bool {
        request.method == .get && request.body == nil
    }
}
