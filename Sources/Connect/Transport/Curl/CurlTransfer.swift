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
/// `@unchecked Sendable`: created on the caller's thread, then touched only by the transfer
/// thread (options, callbacks, completion); the promise is itself thread-safe.
final class CurlTransfer: PromiseCancellationObserver, @unchecked Sendable {
    let request: Request
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
    /// The header lines and body received, from the transfer loop's pool; set when the transfer
    /// starts, handed on when it succeeds.
    @exclusivity(unchecked) var received: ReceivedResponse?
    /// The `Content-Range` of the response, looked up once for a file sink.
    @exclusivity(unchecked) var contentRange: String??
    @exclusivity(unchecked) var bodyTooLarge = false
    /// What the response head has shown so far; a head it refused leaves its problem here.
    @exclusivity(unchecked) var head = ResponseHeadParser()
    /// The status of the last head (0 before any): an interim 1xx until the final one comes.
    var statusCode: Int { head.statusCode }
    @exclusivity(unchecked) var headProblem: ResponseHeadParser.Problem?
    /// Decodes a chunked or compressed body (gzip, deflate, br, zstd); see ``BodyDecoder``.
    @exclusivity(unchecked) var decoder: BodyDecoder?
    @exclusivity(unchecked) var decodingFailure: BodyDecoder.Failure?
    /// Decoded bytes a paused stream did not take yet, and how many bytes of the input libcurl
    /// will hand over again when it resumes were already decoded into them.
    @exclusivity(unchecked) var pendingDecoded: [UInt8] = []
    @exclusivity(unchecked) var alreadyDecodedInput = 0
    /// Connections libcurl has chosen for this transfer: a second means it is sending the
    /// request again after a connection died.
    @exclusivity(unchecked) var connectionsChosen = 0
    /// Times the transport started this transfer over after a framing error (see
    /// ``startsOverAfterFramingError()``).
    @exclusivity(unchecked) var restartsAfterFramingError = 0
    /// Times the transport started this transfer over after its reused connection died before
    /// any of the answer came (see ``startsOverOnDeadConnection(_:on:)``).
    @exclusivity(unchecked) var restartsOnDeadConnection = 0
    /// libcurl was stopped from sending a request again that may not be repeated.
    @exclusivity(unchecked) var refusedResend = false
    /// The transport stopped the request from going out on the connection libcurl chose (see
    /// ``connectionChosen(ports:connections:)``): start over on a new one.
    @exclusivity(unchecked) var needsFreshConnection = false
    /// The socket of the connection the request went out on, once libcurl chose it.
    @exclusivity(unchecked) var connectionSocket: Int32?
    /// That connection multiplexed when libcurl chose it (see ``ConnectionTracker/multiplexes(_:)``).
    @exclusivity(unchecked) var connectionMultiplexed = false
    /// The origin this transfer opens a new connection to while other transfers wait for that
    /// connection (see ``SharedConnectionOpenings``), until the connection is ready or the
    /// transfer ends.
    @exclusivity(unchecked) var opensConnectionTo: String?
    /// The origin whose new connection, opened by another transfer, this one waits for: it was
    /// stopped before it opened its own, and goes to libcurl again once that one is ready.
    @exclusivity(unchecked) var waitsForConnectionTo: String?
    /// That connection's serial, while this transfer counts among its exchanges in flight (see
    /// ``ConnectionTracker/exchangeStarted(on:)``).
    @exclusivity(unchecked) var connectionSerial: UInt32?
    /// The handle the transfer runs on, set with its options. Unowned: the handle holds the
    /// transfer while it runs, and callbacks come only then.
    @exclusivity(unchecked) unowned(unsafe) var runningHandle: CurlEasyHandle?
    /// For a request that wants HTTP/2 with prior knowledge on an `http://` URL: its origin and
    /// what it asked libcurl for (see ``PriorKnowledgeConnections``).
    @exclusivity(unchecked) var h2c: (origin: String, ask: PriorKnowledgeConnections.Ask)?
    /// It asked for prior knowledge and has no connection yet: counted among the tracker's
    /// connections being opened until it has one or ends.
    @exclusivity(unchecked) var awaitsPriorKnowledgeConnection = false
    /// The request body's bytes, from memory or disk.
    @exclusivity(unchecked) var bodyReader: BodyReader?
    /// For a request with a body: the handle it runs on, to ask how much of the body went out.
    /// Unowned: the handle holds the transfer while it runs, and callbacks come only then.
    @exclusivity(unchecked) unowned(unsafe) var uploadingHandle: CurlEasyHandle?
    /// The response head is HTTP/2.
    @exclusivity(unchecked) var responseIsHTTP2 = false
    /// Body bytes libcurl delivered and this transfer took, before decoding.
    @exclusivity(unchecked) var bodyBytesTaken = 0
    /// The whole response arrived over HTTP/2 before the whole request body was sent, and the
    /// transfer was stopped there as a success; see ``isAnsweredBeforeBodySent()``.
    @exclusivity(unchecked) var answeredBeforeBodySent = false
    /// A multipart body, built with libcurl's MIME API on the easy handle.
    @exclusivity(unchecked) var mime: OpaquePointer?
    /// Where a 2xx body is written, for file destinations.
    @exclusivity(unchecked) var sink: FileSink?
    /// Bytes already on disk that a resumed download continues from.
    @exclusivity(unchecked) var resumeOffset: Int64 = 0
    /// Progress reporting, for requests with a handler: updates go to this serial queue (which
    /// targets the callback queue) so they arrive in order.
    @exclusivity(unchecked) var progressQueue: DispatchQueue?
    @exclusivity(unchecked) var lastProgressReport: UInt64 = 0
    @exclusivity(unchecked) var latestProgress = TransferProgress()

    init(request: Request, transport: CurlTransport, promise: PendingStep<Response>) {
        self.request = request
        self.transport = transport
        self.promise = promise
    }

    /// Makes the serial queue the transfer's progress reports go through, in order, to the
    /// callback queue, if its request has a progress handler. Called by the sender before the
    /// transfer starts: checked in `init`, the branch kept the arguments retained across it.
    func prepareProgressReports() {
        if _slowPath(request.progress != nil) { makeProgressQueue() }
    }

    /// Out of line: few requests report progress.
    @inline(never)
    private func makeProgressQueue() {
        progressQueue = DispatchQueue(label: "connect.progress", target: transport.context.callbackQueue)
    }

    deinit {
        curl_mime_free(mime)
        promise.abandonIfPending()
    }

    /// The future was cancelled: stop the transfer (on the transfer thread).
    func promiseWasCancelled() {
        loop.send(.cancel(self))
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
    var isPlain: Bool {
        request.progress == nil && request.streamBuffer == nil
            && { switch request.body?.content { case nil, .data?: return true; default: return false } }()
            && { if case .memory = request.destination { return true } else { return false } }()
            && { if case .file = settings.cookies { return false } else { return true } }()
    }

    /// A plain GET: it sets no method or body options.
    private var isPlainGet: Bool {
        request.method == .get && request.body == nil
    }

    /// Sets every option of this request on `handle`: fresh, reset, or (for a plain transfer)
    /// holding the setup of another plain transfer of the same transport, when only this
    /// transfer's own options are set.
    ///
    /// `again`: the transfer ran on `handle` before, which was reset to start it over (see
    /// ``prepareForRestart(on:_:)``). The body reader, multipart body and file sink it made then
    /// are set again rather than made anew, and its h2c ask is left to the restart.
    func configure(_ handle: CurlEasyHandle, again: Bool = false) throws(ConnectError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let url = request.url.absoluteString
        runningHandle = handle
        handle.setURL(url)
        handle.set(CURLOPT_WRITEDATA, pointer: context)
        handle.set(CURLOPT_HEADERDATA, pointer: context)
        handle.set(CURLOPT_TIMEOUT_MS, request.timeout.map(Self.milliseconds) ?? settings.timeoutMilliseconds)
        if _slowPath(!handle.holdsPlainSetup) {
            configureCommonOptions(handle)
        }
        if _slowPath(handle.carriesMethodOptions) {
            handle.undoMethodOptions()
        }
        let isPlainGet = isPlainGet
        if _slowPath(!isPlainGet) {
            try configureMethodAndBody(handle, again: again)
        }
        handle.carriesMethodOptions = !isPlainGet
        // After every option that can fail: an h2c ask is counted until its transfer ends.
        if !again || h2c == nil { configureHTTPVersion(handle, url: url) }
        if _slowPath(again || request.progress != nil || !isInMemory) {
            configureDestinationAndProgress(handle, again: again)
        }
        handle.setHeaders(request.headers, adjusting: isPlainGet ? [] : headerAdjustments())
    }

    /// The response body goes to memory, as most do (not to a file).
    private var isInMemory: Bool {
        if case .memory = request.destination { return true } else { return false }
    }

    /// For ``configure(_:again:)``, a transfer that starts over, writes to a file or reports
    /// progress: the range it resumes from, its file sink and its progress callback.
    @inline(never)
    private func configureDestinationAndProgress(_ handle: CurlEasyHandle, again: Bool) {
        if again {
            if resumeOffset > 0 { handle.set(CURLOPT_RANGE, "\(resumeOffset)-") }
        } else if case .file(let url, let resuming) = request.destination {
            sink = FileSink(destination: url, resuming: resuming)
            if resuming, let size = FileSink.sizeOfFile(at: url), size > 0 {
                resumeOffset = size
                // A plain Range header rather than CURLOPT_RESUME_FROM_LARGE, which fails the
                // transfer when the server answers 200; here that starts the file over instead.
                handle.set(CURLOPT_RANGE, "\(size)-")
            }
        }
        if request.progress != nil {
            handle.set(CURLOPT_NOPROGRESS, 0)
            ccurl_easy_setopt_progress_callback(handle.raw, curlReportProgress)
            handle.set(CURLOPT_XFERINFODATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// How libcurl's own headers change for a request with a method or body options (a plain GET
    /// needs no change): `Expect` left out on a body, the form type libcurl claims for a POST that
    /// names no type left out, and an empty length added to a POST without a body.
    @inline(never)
    private func headerAdjustments() -> CurlEasyHandle.HeaderAdjustments {
        var adjustments: CurlEasyHandle.HeaderAdjustments = []
        if request.method == .post, request.body == nil, !request.headers.contains(name: "Content-Length") {
            adjustments.insert(.emptyBodyLength)
        }
        if request.body != nil, !request.headers.contains(name: "Expect") { adjustments.insert(.expect) }
        if request.method == .post || bodyGoesWithHead, !request.headers.contains(name: "Content-Type") {
            // A multipart body names its own type, with the boundary.
            if case .multipart? = request.body?.content {} else { adjustments.insert(.contentType) }
        }
        return adjustments
    }

    /// The options every transfer of this transport sets alike.
    private func configureCommonOptions(_ handle: CurlEasyHandle) {
        handle.set(CURLOPT_NOSIGNAL, 1)
        handle.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(handle.errorBuffer))
        handle.setDataCallback(CURLOPT_WRITEFUNCTION, curlWriteBody)
        handle.setDataCallback(CURLOPT_HEADERFUNCTION, curlReceiveHeader)
        // Connect asks for compressed bodies with a header of its own (see
        // `CurlEasyHandle.setHeaders`) and decodes them itself (see ContentDecoder): libcurl
        // must hand them over as they came.
        handle.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        // Chunked bodies too: libcurl still finds where one ends, and Connect checks its framing
        // strictly (see ChunkedDecoder) before libcurl reads the same bytes leniently.
        handle.set(CURLOPT_HTTP_TRANSFER_DECODING, 0)
        // Each connection's socket is known, so that an idle one with unread bytes is never
        // reused (see ConnectionTracker), and each is chosen through `connectionChosen`.
        let tracker = Unmanaged.passUnretained(handle.connections).toOpaque()
        ccurl_easy_setopt_sockopt_callback(handle.raw, curlSocketOpened)
        handle.set(CURLOPT_SOCKOPTDATA, pointer: Unmanaged.passUnretained(handle).toOpaque())
        ccurl_easy_setopt_closesocket_callback(handle.raw, ConnectionTrackerCallbacks.socketClosing)
        handle.set(CURLOPT_CLOSESOCKETDATA, pointer: tracker)
        ccurl_easy_setopt_prereq_callback(handle.raw, curlConnectionChosen)
        handle.set(CURLOPT_PREREQDATA, pointer: Unmanaged.passUnretained(handle).toOpaque())
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(settings.connectTimeout))
        handle.set(CURLOPT_TCP_KEEPALIVE, 1)
        // Redirects are followed above the transport (see RedirectFollower), hop by hop, so that
        // every hop gets the same checks, TLS pins included; libcurl must not follow them itself.
        handle.set(CURLOPT_FOLLOWLOCATION, 0)
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Literal dot-segments are removed before the URL is handed over; encoded ones are data
        // (see DotSegments).
        handle.set(CURLOPT_PATH_AS_IS, 1)
        configureTLS(handle, settings.tls)
        // Only the configured proxy, or none: left unset, libcurl reads http_proxy, all_proxy and
        // no_proxy from the environment, and on every transfer. Without a proxy the bypass list
        // is set empty too: libcurl otherwise still looks up no_proxy and NO_PROXY for each
        // transfer, to bypass a proxy there is none of.
        if let proxy = settings.proxy {
            handle.set(CURLOPT_PROXY, proxy.url)
            if let username = proxy.username { handle.set(CURLOPT_PROXYUSERNAME, username) }
            if let password = proxy.password { handle.set(CURLOPT_PROXYPASSWORD, password) }
            handle.set(CURLOPT_NOPROXY, proxy.bypassHosts.joined(separator: ","))
        } else {
            handle.set(CURLOPT_PROXY, "")
            handle.set(CURLOPT_NOPROXY, "")
        }
    }

    @inline(never)
    private func configureMethodAndBody(_ handle: CurlEasyHandle, again: Bool) throws(ConnectError) {
        let method = request.method
        if let body = request.body {
            let setAgain = again ? try setBodyAgain(body, handle) : false
            if !setAgain { try setBody(body, handle) }
            if method != .post { handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
            uploadingHandle = handle
        } else if method == .head {
            handle.set(CURLOPT_NOBODY, 1)
        } else if method != .get {
            // A POST without a body too: see `CurlEasyHandle.HeaderAdjustments.emptyBodyLength`.
            handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue)
        }
    }

    /// `url`: the request's URL as text, http or https (so its fifth letter tells which).
    private func configureHTTPVersion(_ handle: CurlEasyHandle, url: String) {
        // Read from the contiguous bytes: slicing the UTF-8 view costs more than the rest, and
        // `withUTF8` on a copy retains the string.
        let isHTTPS = url.utf8.withContiguousStorageIfAvailable { $0.count > 4 && $0[4] | 0x20 == UInt8(ascii: "s") }
            ?? (url.utf8.dropFirst(4).first.map { $0 | 0x20 == UInt8(ascii: "s") } ?? false)
        switch (request.httpVersion ?? settings.httpVersion).choice {
        case .automatic:
            // On https, requests started together wait for the first connection's handshake to
            // learn whether it multiplexes (ALPN h2) rather than open one each. On http the
            // answer would come only with the first response: no wait.
            handle.setHTTPVersion(CURL_HTTP_VERSION_2TLS, waitingForMultiplexing: isHTTPS)
        case .http1Only:
            handle.setHTTPVersion(CURL_HTTP_VERSION_1_1, waitingForMultiplexing: false)
        case .http2WithPriorKnowledge:
            guard !isHTTPS else {
                // HTTP/2 is negotiated in the TLS handshake.
                handle.setHTTPVersion(CURL_HTTP_VERSION_2TLS, waitingForMultiplexing: true)
                return
            }
            let origin = Self.origin(of: url)
            ask(handle.connections.priorKnowledge.ask(for: origin), for: origin, handle)
        }
    }

    /// Asks libcurl for h2c as `ask` says, waiting for a connection being opened to the origin
    /// rather than opening another.
    private func ask(_ ask: PriorKnowledgeConnections.Ask, for origin: String, _ handle: CurlEasyHandle) {
        h2c = (origin, ask)
        awaitsPriorKnowledgeConnection = ask == .priorKnowledge
        handle.setHTTPVersion(ask == .priorKnowledge ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2_0, waitingForMultiplexing: true)
    }

    /// "host:port" of an `http://` or `https://` URL's text, lowercased, with the scheme's port
    /// when the URL names none: the key connections are kept by here. Read from the text libcurl
    /// is given, which every transfer has made already (asking `URL` for its host and port costs
    /// more than the rest of choosing the version).
    static func origin(of url: String) -> String {
        var url = url
        return url.withUTF8 { bytes in
            var start = 0
            while start < bytes.count, bytes[start] != UInt8(ascii: ":") { start += 1 }
            start += 3  // "://"
            var end = start
            var hostStart = start
            var lastColon = -1
            var closingBracket = -1
            scan: while end < bytes.count {
                switch bytes[end] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): break scan
                case UInt8(ascii: "@"):  // the host comes after the user information
                    hostStart = end + 1
                    lastColon = -1
                case UInt8(ascii: ":"): lastColon = end
                case UInt8(ascii: "]"): closingBracket = end  // an IPv6 address's colons are not a port's
                default: break
                }
                end += 1
            }
            guard hostStart < end else { return "" }
            let hasPort = lastColon > closingBracket
            let count = end - hostStart
            // The host starts at the ninth byte after "https://", at the eighth after "http://".
            let defaultPort: StaticString = start == 8 ? ":443" : ":80"
            return String(unsafeUninitializedCapacity: count + (hasPort ? 0 : defaultPort.utf8CodeUnitCount)) { origin in
                for index in 0..<count {
                    let byte = bytes[hostStart + index]
                    origin[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                }
                guard !hasPort else { return count }
                for index in 0..<defaultPort.utf8CodeUnitCount { origin[count + index] = defaultPort.utf8Start[index] }
                return count + defaultPort.utf8CodeUnitCount
            }
        }
    }

    /// The transfer got its connection or ends without one: it no longer holds back the
    /// others that want to share the connection it was opening.
    func settlePriorKnowledgeAsk(_ connections: ConnectionTracker) {
        guard awaitsPriorKnowledgeConnection, let h2c else { return }
        awaitsPriorKnowledgeConnection = false
        connections.priorKnowledge.priorKnowledgeAskSettled(for: h2c.origin)
    }

    /// Trust and pinning are set on every transfer, so every redirect hop is checked too.
    private func configureTLS(_ handle: CurlEasyHandle, _ tls: TLSConfiguration) {
        if let trusted = tls.pinnedCertificates ?? tls.trustedCertificates {
            // With only the pinned certificates as trust anchors (libcurl accepts a partial
            // chain), the server's certificate must be one of them.
            handle.set(CURLOPT_CAINFO, trusted.path)
            handle.set(CURLOPT_CAPATH, pointer: nil)
        }
        if !tls.pinnedPublicKeys.isEmpty {
            handle.set(CURLOPT_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";"))
        }
        if let client = tls.clientCertificate {
            handle.set(CURLOPT_SSLCERT, client.certificate.path)
            handle.set(CURLOPT_SSLKEY, client.privateKey.path)
            if let password = client.password { handle.set(CURLOPT_KEYPASSWD, password) }
        }
        if !tls.verifiesCertificates {
            handle.set(CURLOPT_SSL_VERIFYPEER, 0)
            handle.set(CURLOPT_SSL_VERIFYHOST, 0)
        }
    }

    /// Bodies in memory up to this size are copied into libcurl (``sendWithHead(_:_:)``); larger
    /// ones are read from the request's own bytes. libcurl sends a body it holds with the request
    /// head when it is under 64 KiB.
    static let largestBodySentWithHead = 64 << 10

    /// The body is in memory, not empty and small: handed to libcurl whole, to go out with the
    /// request head (see ``sendWithHead(_:_:)``).
    private var bodyGoesWithHead: Bool {
        guard case .data(let data)? = request.body?.content else { return false }
        return !data.isEmpty && data.count <= Self.largestBodySentWithHead
    }

    /// A small body in memory, copied into libcurl (`CURLOPT_COPYPOSTFIELDS`), which writes it
    /// with the request head: one write and one segment for the whole request, where a body read
    /// through the read callback goes out in a write of its own after the head, costing a system
    /// call and a segment more, on both sides. libcurl treats the request as a POST; another
    /// method keeps its name through `CURLOPT_CUSTOMREQUEST`, and libcurl's form content type is
    /// left out unless the request names one.
    private func sendWithHead(_ data: Data, _ handle: CurlEasyHandle) {
        // The size first: it makes the copy binary-safe rather than stop at a NUL byte.
        handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(data.count))
        data.withUnsafeBytes { bytes in
            handle.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
    }

    /// Makes the request body and sets it on `handle`.
    private func setBody(_ body: RequestBody, _ handle: CurlEasyHandle) throws(ConnectError) {
        switch body.content {
        case .data(let data) where bodyGoesWithHead:
            sendWithHead(data, handle)
        case .data(let data):
            try streamBody(from: BodyReader(data: data), size: Int64(data.count), handle)
        case .file(let url, let size):
            guard let reader = BodyReader(fileAt: url) else {
                throw .invalidRequest("the file \(url.path.debugDescription) cannot be read")
            }
            try streamBody(from: reader, size: size, handle)
        case .multipart(let parts):
            try attachMultipart(parts, handle)
        case .stream(let body):
            let loop = self.loop
            let pump = BodyPump(body: body) { [weak self] in
                if let self { loop.send(.resume(self)) }
            }
            try streamBody(from: BodyReader(pump: pump), size: body.count.map(Int64.init) ?? -1, handle)
        }
    }

    /// Sets again the body this transfer made when it first ran, on its handle reset to start
    /// over (see ``rewindsForReset()``): the reader or the multipart body. Returns false for a
    /// body made anew each time, a small one copied into libcurl.
    private func setBodyAgain(_ body: RequestBody, _ handle: CurlEasyHandle) throws(ConnectError) -> Bool {
        guard !bodyGoesWithHead else { return false }
        if case .multipart = body.content {
            guard let mime else { return false }
            ccurl_easy_setopt_mime(handle.raw, CURLOPT_MIMEPOST, mime)
            return true
        }
        guard let bodyReader else { return false }
        try streamBody(from: bodyReader, size: body.count.map(Int64.init) ?? -1, handle)
        return true
    }

    /// A body libcurl pulls through the read callback: a POST of known size, rewindable.
    private func streamBody(from reader: BodyReader, size: Int64, _ handle: CurlEasyHandle) throws(ConnectError) {
        bodyReader = reader
        let context = Unmanaged.passUnretained(reader).toOpaque()
        if request.method == .post {
            handle.set(CURLOPT_POST, 1)
            handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(size))
        } else {
            handle.set(CURLOPT_UPLOAD, 1)
            handle.set(CURLOPT_INFILESIZE_LARGE, offset: curl_off_t(size))
        }
        // -1, an unknown size: libcurl sends the body chunked.
        if size > 1 << 20 {
            // libcurl's default 64 KiB upload buffer means a read callback and a send() per
            // 64 KiB; large bodies go a few times faster with bigger reads.
            handle.set(CURLOPT_UPLOAD_BUFFERSIZE, 1 << 20)
        }
        handle.setDataCallback(CURLOPT_READFUNCTION, curlReadBody)
        handle.set(CURLOPT_READDATA, pointer: context)
        ccurl_easy_setopt_seek_callback(handle.raw, curlSeekBody)
        handle.set(CURLOPT_SEEKDATA, pointer: context)
    }

    /// A `multipart/form-data` body built by libcurl: it writes the boundary, the part headers
    /// (escaping quotes, CR and LF in names) and streams file parts from disk.
    private func attachMultipart(_ parts: [FormPart], _ handle: CurlEasyHandle) throws(ConnectError) {
        guard let mime = curl_mime_init(handle.raw) else {
            throw .transport(TransportFailure(kind: .other, message: "curl_mime_init failed", requestSent: false, curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue)))
        }
        self.mime = mime
        for formPart in parts {
            if let problem = formPart.validationProblem { throw .invalidRequest(problem) }
            let part = curl_mime_addpart(mime)
            curl_mime_name(part, formPart.name)
            switch formPart.value {
            case .text(let text):
                let utf8 = Array(text.utf8)
                utf8.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { _ = curl_mime_data(part, $0.baseAddress, bytes.count) }
                }
            case .typed(let data, let mimeType):
                let reader = Unmanaged.passRetained(BodyReader(data: data)).toOpaque()
                ccurl_mime_data_cb(part, curl_off_t(data.count), curlReadBody, curlSeekBody, curlReleaseReader, reader)
                curl_mime_type(part, mimeType.rawValue)
            case .file(let file):
                switch file.source {
                case .data(let data):
                    // Read through a callback rather than copied into libcurl: a large in-memory
                    // file is not duplicated.
                    let reader = Unmanaged.passRetained(BodyReader(data: data)).toOpaque()
                    ccurl_mime_data_cb(part, curl_off_t(data.count), curlReadBody, curlSeekBody, curlReleaseReader, reader)
                case .disk(let url):
                    guard curl_mime_filedata(part, url.path) == CURLE_OK else {
                        throw .invalidRequest("the file \(url.path.debugDescription) cannot be read")
                    }
                }
                curl_mime_filename(part, file.name)
                curl_mime_type(part, file.mimeType.rawValue)
            }
        }
        ccurl_easy_setopt_mime(handle.raw, CURLOPT_MIMEPOST, mime)
    }

    /// The response received, or the error, once libcurl reports `code` for this transfer. The
    /// `Response` itself is made on the callback queue (see ``ReceivedResponse``).
    ///
    /// Written as the path of a plain exchange that ended well, with everything else (a failure,
    /// a streamed body, a file, progress reports) in ``settleUnusualEnding(code:handle:requestSent:)``
    /// out of line: the code every request runs stays a few cache lines long.
    func outcome(code: CURLcode, handle: CurlEasyHandle) -> Result<ReceivedResponse, any Error> {
        let bytesSent = handle.infoLong(CURLINFO_REQUEST_SIZE)
        var fileURL: URL?
        if _slowPath(code != CURLE_OK || !endedCleanly || bodyReader != nil || sink != nil || request.progress != nil) {
            switch settleUnusualEnding(code: code, handle: handle, requestSent: bytesSent > 0) {
            case .success(let url): fileURL = url
            case .failure(let error): return .failure(error)
            }
        }
        let httpVersion = handle.infoLong(CURLINFO_HTTP_VERSION)
        if let connectionSocket {
            handle.connections.exchangeFinished(on: connectionSocket, isHTTP1: httpVersion < CURL_HTTP_VERSION_2_0)
        }
        guard let received else {  // the loop gives every transfer one before it starts
            return .failure(ConnectError.transport(TransportFailure(.other, "no response buffers", requestSent: bytesSent > 0)))
        }
        self.received = nil
        received.statusCode = statusCode
        received.httpVersion = Self.versionName(httpVersion)
        received.metrics = TransferMetrics(
            nameLookup: handle.infoDuration(CURLINFO_NAMELOOKUP_TIME_T),
            connect: handle.infoDuration(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: handle.infoDuration(CURLINFO_APPCONNECT_TIME_T),
            firstByte: handle.infoDuration(CURLINFO_STARTTRANSFER_TIME_T),
            total: handle.infoDuration(CURLINFO_TOTAL_TIME_T),
            redirectCount: 0,
            bytesSent: bytesSent,
            bytesReceived: Int(handle.infoOffset(CURLINFO_SIZE_DOWNLOAD_T)),
            reusedConnection: handle.infoLong(CURLINFO_NUM_CONNECTS) == 0
        )
        if let sink {
            received.fileURL = fileURL
            received.resumed = sink.resumed
        }
        return .success(received)
    }

    /// Nothing the callbacks saw calls for ``failure(code:requestSent:)`` once libcurl reports
    /// success: the common case, checked at once so that a request that ended well skips it.
    private var endedCleanly: Bool {
        headProblem == nil && !refusedResend && decodingFailure == nil && decoder == nil && head.isComplete
    }

    /// For ``outcome(code:handle:)``, every ending but a plain success: the error the transfer
    /// ends with, or for a success the file its body went to (`nil` for memory). Closes a
    /// streamed body's reader and the file sink, and reports the final progress.
    @inline(never)
    private func settleUnusualEnding(code: CURLcode, handle: CurlEasyHandle, requestSent: Bool) -> Result<URL?, any Error> {
        // Stopped from a callback, complete: see `isAnsweredBeforeBodySent`.
        let code = answeredBeforeBodySent && (code == CURLE_WRITE_ERROR) ? CURLE_OK : code
        updateFinalProgress(handle)
        if let pump = bodyReader?.pump {
            pump.close()
            if let bodyFailure = pump.failure {
                finishSink(succeeded: false)
                return .failure(bodyFailure)
            }
        }
        if let failure = failure(code: code, requestSent: requestSent, connectionWasReused: handle.infoLong(CURLINFO_NUM_CONNECTS) == 0) {
            finishSink(succeeded: false)
            return .failure(ConnectError.transport(failure))
        }
        guard code == CURLE_OK else {
            let sinkError = sink?.error
            finishSink(succeeded: false)
            if let sinkError { return .failure(sinkError) }
            if bodyTooLarge { return .failure(ConnectError.responseTooLarge(limit: settings.maximumBodySize)) }
            return .failure(ConnectError(curlCode: code, message: handle.errorMessage(for: code), requestSent: requestSent))
        }
        if let sink, (200..<300).contains(statusCode) {
            if let error = sink.finish(succeeded: true) { return .failure(error) }
            return .success(sink.destination)
        }
        finishSink(succeeded: false)
        return .success(nil)
    }

    /// The failures Connect finds itself, which libcurl 7.88 lets through or reports as
    /// something else: a response it refused, a resend it stopped, a compressed body that is cut
    /// off or corrupt, a head that never ended, a reply that is not HTTP.
    private func failure(code: CURLcode, requestSent: Bool, connectionWasReused: Bool) -> TransportFailure? {
        if let headProblem {
            return TransportFailure(.malformedResponse, "Malformed response: \(headProblem)")
        }
        if refusedResend {
            return TransportFailure(
                .connectionClosed,
                "The connection closed before a response; the request may have reached the server, and a \(request.method.rawValue) is not sent again unless it allows retries")
        }
        if let decodingFailure {
            return TransportFailure(.malformedResponse, "Malformed response: \(decodingFailure)")
        }
        if ResendDecision.endsWithDeadConnection(code), connectionWasReused, !responseStarted, requestSent {
            return TransportFailure(
                .connectionClosed,
                "The reused connection closed before any answer; the request may have reached the server, and a \(request.method.rawValue) is not sent again unless it allows retries")
        }
        if code == CURLE_SEND_FAIL_REWIND, request.body?.isReplayable == false {
            return TransportFailure(
                .bodyNotReplayable, "libcurl had to send the request body again, and it is a one-time stream that was already read", requestSent: requestSent)
        }
        if code == CURLE_BAD_FUNCTION_ARGUMENT, statusCode != 0 {
            // libcurl's header store refuses a line it cannot split into a name and a value (a
            // trailer without a colon, a folded line with no field before it) before Connect's
            // callback sees it.
            return TransportFailure(.malformedResponse, "Malformed response: a header or trailer line is not a field")
        }
        if code == CURLE_UNSUPPORTED_PROTOCOL, requestSent {
            return TransportFailure(.malformedResponse, "Malformed response: the reply is not HTTP")
        }
        guard code == CURLE_OK else { return nil }
        if !head.isComplete {
            return TransportFailure(.truncatedResponse, "Truncated response: the connection closed inside the response head")
        }
        if let decoder, decoder.hasInput, !decoder.isComplete {
            return TransportFailure(.truncatedResponse, "Truncated response: the body ends before its chunked framing or compressed stream does")
        }
        return nil
    }

    /// The request may go out more than once (see ``ResendDecision/mayRepeat(methodIsIdempotent:allowsRetry:)``).
    private var isRepeatable: Bool {
        ResendDecision.mayRepeat(methodIsIdempotent: request.method.isIdempotent, allowsRetry: request.allowsRetry)
    }

    /// Any of the answer arrived: a status line, or body bytes.
    private var responseStarted: Bool { statusCode != 0 || bodyBytesTaken > 0 }

    /// Whether the transfer starts over on a new connection after libcurl ended it with `code`
    /// on `handle` because its reused connection died before any of the answer came, by
    /// ``ResendDecision/startsOverOnDeadConnection(connectionWasReused:responseStarted:isRepeatable:restartsSoFar:)``;
    /// if so, its body is rewound for it (``rewindsForReset()``).
    func startsOverOnDeadConnection(_ code: CURLcode, on handle: CurlEasyHandle) -> Bool {
        guard ResendDecision.endsWithDeadConnection(code),
            ResendDecision.startsOverOnDeadConnection(
                connectionWasReused: handle.infoLong(CURLINFO_NUM_CONNECTS) == 0, responseStarted: responseStarted, isRepeatable: isRepeatable,
                restartsSoFar: restartsOnDeadConnection),
            rewindsForReset()
        else { return false }
        restartsOnDeadConnection += 1
        return true
    }

    /// Whether the transfer starts over on a new connection after libcurl ended it with a
    /// framing error (`CURLE_HTTP2`), by ``ResendDecision/startsOverAfterFramingError(responseStarted:isRepeatable:restartsSoFar:)``;
    /// if so, its body is rewound for it (``rewindsForReset()``).
    func startsOverAfterFramingError() -> Bool {
        guard ResendDecision.startsOverAfterFramingError(responseStarted: statusCode != 0, isRepeatable: isRepeatable, restartsSoFar: restartsAfterFramingError),
            rewindsForReset()
        else { return false }
        restartsAfterFramingError += 1
        return true
    }

    /// Rewinds the body for the transfer to run again on its handle reset, before
    /// ``configure(_:again:)``: false when the body cannot go out again (a one-time stream), and
    /// the handle keeps its options instead. libcurl rewinds a multipart body itself.
    func rewindsForReset() -> Bool {
        bodyReader?.seek(to: 0) ?? true
    }

    /// Why the transfer starts over now (see ``ResendDecision/restartConnection(after:)``).
    var restartCause: ResendDecision.RestartCause {
        if waitsForConnectionTo != nil { return .waitedForSharedConnection }
        if needsFreshConnection { return .connectionRefused }
        return .connectionEnded(multiplexed: connectionMultiplexed)
    }

    /// The transfer starts over on `connection`: nothing of the response arrived on the last.
    func prepareForRestart(on handle: CurlEasyHandle, _ connection: ResendDecision.RestartConnection) {
        needsFreshConnection = false
        waitsForConnectionTo = nil
        connectionsChosen = 0
        leaveConnection(handle.connections)
        connectionSocket = nil
        connectionMultiplexed = false
        head = ResponseHeadParser()
        received?.empty()
        settlePriorKnowledgeAsk(handle.connections)
        if let h2c {
            // On a new connection, with prior knowledge; on any live one, as a first request to
            // the origin would ask: to share its h2c connection, or to open one if none is open.
            switch connection {
            case .new: ask(handle.connections.priorKnowledge.askAfterRestart(for: h2c.origin), for: h2c.origin, handle)
            case .anyLive: ask(handle.connections.priorKnowledge.ask(for: h2c.origin), for: h2c.origin, handle)
            }
        }
    }

    // MARK: Callbacks, on the transfer thread

    /// libcurl chose a connection for this transfer and is about to send the request on it.
    /// Returns whether it may.
    func connectionChosen(ports: ConnectionTracker.Ports, connections: ConnectionTracker) -> Bool {
        connectionsChosen += 1
        if ResendDecision.refusesResend(connectionsChosen: connectionsChosen, isRepeatable: isRepeatable) {
            refusedResend = true
            return false
        }
        leaveConnection(connections)  // a resend leaves the connection that died
        connectionSocket = connections.socket(for: ports)
        if let connectionSocket, connections.hasUnreadBytes(on: connectionSocket) {
            needsFreshConnection = true
            return false
        }
        if let connectionSocket, !connections.allowsAnotherExchange(on: connectionSocket) {
            needsFreshConnection = true
            return false
        }
        if let h2c, let connectionSocket {
            settlePriorKnowledgeAsk(connections)
            let connection = connections.choose(connectionSocket)
            switch PriorKnowledgeConnections.verdict(asked: h2c.ask, connectionIsNew: connection.isNew, connectionSpeaksH2C: connection.speaksH2C) {
            case .proceed:
                if h2c.ask == .priorKnowledge { connections.openedH2C(connectionSocket, to: h2c.origin) }
            case .restartWithPriorKnowledge:
                needsFreshConnection = true
                return false
            }
        }
        if let connectionSocket {
            connectionSerial = connections.exchangeStarted(on: connectionSocket)
            connectionMultiplexed = connections.multiplexes(connectionSocket)
        }
        settleOpening(connections)
        return true
    }

    /// libcurl is about to open a new connection for this transfer: whether it may, or must
    /// wait for the one another transfer is opening to the same origin (see
    /// ``SharedConnectionOpenings``).
    func mayOpenConnection(_ connections: ConnectionTracker) -> Bool {
        guard !connections.openings.isEmpty else { return true }
        let origin = Self.origin(of: request.url.absoluteString)
        let mayWait = ResendDecision.mayWaitForSharedConnection(connectionsChosen: connectionsChosen, isRepeatable: isRepeatable)
        switch connections.openings.opening(origin, by: ObjectIdentifier(self), mayWait: mayWait) {
        case .opens:
            opensConnectionTo = origin
            return true
        case .waits:
            waitsForConnectionTo = origin
            return false
        case .proceeds:
            return true
        }
    }

    /// The connection this transfer opened is ready, or the transfer ends: the transfers that
    /// waited for it may go.
    func settleOpening(_ connections: ConnectionTracker) {
        guard let origin = opensConnectionTo else { return }
        opensConnectionTo = nil
        connections.openings.settled(origin, by: ObjectIdentifier(self))
    }

    /// The transfer no longer counts among the exchanges in flight on its connection: it ended,
    /// or starts over on another.
    func leaveConnection(_ connections: ConnectionTracker) {
        guard let connectionSerial, let connectionSocket else { return }
        connections.exchangeLeft(connectionSocket, serial: connectionSerial)
        self.connectionSerial = nil
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let taken = decoder == nil ? deposit(bytes) : decodeBody(bytes)
        if taken == bytes.count, uploadingHandle != nil {
            bodyBytesTaken += taken
            if isAnsweredBeforeBodySent() { return 0 }
        }
        return taken
    }

    /// Whether the whole response arrived over HTTP/2 while part of the request body is still
    /// unsent; if so, the exchange is over and succeeded. HTTP/2 lets a server answer before it
    /// has read the whole body and then reset the stream (RFC 9113 section 8.1: "a complete
    /// response ... prior to ... the request"); libcurl 7.88 keeps trying to send the rest into
    /// a stream the server no longer reads, until the timeout. HTTP/1.1 servers close the
    /// connection instead, which ends the upload.
    private func isAnsweredBeforeBodySent() -> Bool {
        guard responseIsHTTP2, head.isComplete else { return false }
        let length = head.contentLength ?? (statusCode == 204 || statusCode == 304 ? 0 : nil)
        guard let length, bodyBytesTaken >= length, !isBodySent else { return false }
        answeredBeforeBodySent = true
        return true
    }

    /// Whether libcurl sent the whole request body (or, for a body of unknown length, read its
    /// end).
    private var isBodySent: Bool {
        guard let uploadingHandle else { return true }
        guard let size = request.body?.count else { return bodyReader?.streamEnded ?? true }
        return uploadingHandle.infoOffset(CURLINFO_SIZE_UPLOAD_T) >= size
    }

    /// Inflates `bytes` into ``deposit(_:)``. When a stream consumer is full, what is already
    /// decoded waits in `pendingDecoded` and libcurl is paused; it hands the same input over
    /// again when it resumes, and that much of it is skipped.
    private func decodeBody(_ input: UnsafeRawBufferPointer) -> Int {
        guard let decoder else { return 0 }
        if !pendingDecoded.isEmpty {
            let accepted = pendingDecoded.withUnsafeBytes { deposit($0) }
            guard accepted == pendingDecoded.count else { return accepted == ccurl_writefunc_pause ? accepted : 0 }
            pendingDecoded.removeAll()
        }
        let skipped = min(alreadyDecodedInput, input.count)
        alreadyDecodedInput = 0
        var paused = false
        do {
            let delivered = try decoder.decode(UnsafeRawBufferPointer(rebasing: input[skipped...])) { chunk in
                if paused {
                    pendingDecoded.append(contentsOf: chunk.bindMemory(to: UInt8.self))
                    return true
                }
                let accepted = deposit(chunk)
                if accepted == chunk.count { return true }
                guard accepted == ccurl_writefunc_pause else { return false }
                paused = true
                pendingDecoded.append(contentsOf: chunk.bindMemory(to: UInt8.self))
                return true
            }
            guard delivered else { return 0 }
        } catch {
            decodingFailure = error
            return 0
        }
        if paused {
            alreadyDecodedInput = input.count
            return ccurl_writefunc_pause
        }
        return input.count
    }

    /// Hands body bytes to where the response goes: a stream, a file or memory. Returns
    /// `bytes.count`, `ccurl_writefunc_pause` (a full stream), or less to stop the transfer.
    private func deposit(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let received = received.map(Unmanaged.passUnretained) else { return 0 }
        if _slowPath(sink != nil || request.streamBuffer != nil) { return depositElsewhere(bytes, received.takeUnretainedValue()) }
        // Not retained, as for the header lines (see `withReceiving(_:)`): this runs for every body chunk.
        return received._withUnsafeGuaranteedRef { keepInMemory(bytes, $0) }
    }

    /// Appends body bytes to the response in memory, up to the largest body allowed.
    @inline(__always)
    private func keepInMemory(_ bytes: UnsafeRawBufferPointer, _ received: ReceivedResponse) -> Int {
        if received.body.count + bytes.count > settings.maximumBodySize {
            bodyTooLarge = true
            return 0
        }
        return received.body.append(bytes) ? bytes.count : 0
    }

    /// ``deposit(_:)`` for a transfer with a stream or a file: a 2xx body goes there, any other
    /// into memory, for the error handler.
    @inline(never)
    private func depositElsewhere(_ bytes: UnsafeRawBufferPointer, _ received: ReceivedResponse) -> Int {
        if let stream = request.streamBuffer, (200..<300).contains(statusCode) {
            let accepted = stream.offer(
                bytes,
                head: Response(statusCode: statusCode, rawHeaders: received.headers.copy(), url: request.url, httpVersion: head.httpVersion,
                               reasonPhrase: received.reasonPhrase))
            // A full buffer pauses the transfer: libcurl keeps these bytes and stops reading
            // the socket until the consumer asks for more.
            return accepted ? bytes.count : ccurl_writefunc_pause
        }
        if let sink, (200..<300).contains(statusCode) {
            // Only a success goes to the file: an error page stays in memory for the error handler.
            if contentRange == nil { contentRange = .some(received.headers.value(for: "Content-Range")) }
            return sink.write(bytes, status: statusCode, contentRange: contentRange ?? nil, resumeOffset: resumeOffset) ? bytes.count : 0
        }
        return keepInMemory(bytes, received)
    }

    /// Runs `body` with `received`, for the header callback, which runs only after checking the
    /// transfer has it (as ``deposit(_:)`` does). Not retained: the transfer holds it until it
    /// ends, after its last callback; a local or a getter would retain and release it for every
    /// header line.
    @inline(__always)
    private func withReceiving<Result>(_ body: (ReceivedResponse) -> Result) -> Result {
        Unmanaged.passUnretained(received.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// One header line from libcurl, checked by the head parser and kept as bytes (see
    /// ``ReceivedHeaderLines``); `false` stops the transfer (a refused head, or memory ran out).
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard received != nil else { return false }
        let line: ResponseHeadParser.Line
        do {
            line = try head.read(bytes)
        } catch {
            headProblem = error
            return false
        }
        switch line {
        case .status:
            // A new head: an interim 1xx or a proxy's answer to CONNECT came before; start over.
            responseIsHTTP2 = ResponseHeadParser.isHTTP2StatusLine(bytes)
            if _slowPath(responseIsHTTP2), !headCameFromHTTP2Frames() {
                headProblem = .http2StatusOnHTTP1Connection
                return false
            }
            let reasonPhrase = ResponseHeadParser.unusualReasonPhrase(ofStatusLine: bytes, statusCode: head.statusCode)
            withReceiving {
                $0.headers.removeAll()
                $0.reasonPhrase = reasonPhrase
            }
            contentRange = nil
            decoder = nil
        case .end:
            if head.isComplete, !prepareForBody() { return false }
            // A body-less answer (204, `Content-Length: 0`) can be complete here.
            if uploadingHandle != nil, isAnsweredBeforeBodySent() { return false }
        case .field:
            return withReceiving { $0.headers.append(line: bytes) }
        case .continuation:
            return withReceiving { $0.headers.appendContinuation(bytes) }
        case .contentLength:
            return withReceiving { $0.headers.append(line: bytes) }
        }
        return true
    }

    /// The final head ended: a decoder for a chunked or compressed body, or for a body in memory
    /// of known length, room for it (or a refusal, over the limit). False stops the transfer.
    @inline(__always)
    private func prepareForBody() -> Bool {
        if _slowPath(head.isChunked || !head.contentCodings.isEmpty) { return makeDecoder() }
        guard let length = head.contentLength, sink == nil, request.streamBuffer == nil else { return true }
        if length > settings.maximumBodySize, statusCode != 204, !(300..<400).contains(statusCode), request.method != .head {
            bodyTooLarge = true
            return false
        }
        let capacity = min(length, settings.maximumBodySize)
        withReceiving { if $0.body.isEmpty { $0.body.reserveCapacity(capacity) } }
        return true
    }

    /// The decoder for the body the head announced: chunked (libcurl hands it over as it came,
    /// see ``ChunkedDecoder``), compressed, or both. A coding Connect does not decode leaves
    /// the content as it came. Out of line: most responses are neither.
    @inline(never)
    private func makeDecoder() -> Bool {
        do {
            decoder = try BodyDecoder(chunked: head.isChunked, codings: head.hasUnknownContentCoding ? [] : head.contentCodings)
        } catch {
            decodingFailure = error
            return false
        }
        return true
    }

    /// Whether the head whose status line says HTTP/2 was decoded from HTTP/2 frames, as libcurl
    /// writes such heads, rather than read as text from an HTTP/1 connection: a lie about the
    /// connection that libcurl 7.88 acts on (see ``ConnectionSharing``). A head from frames
    /// comes with a `:status` pseudo-header in libcurl's header store; a libcurl without the
    /// headers API leaves the URL's scheme and the connection to tell. Proves the connection
    /// multiplexes when it was.
    @inline(never)
    private func headCameFromHTTP2Frames() -> Bool {
        guard let runningHandle else { return true }
        let connections = runningHandle.connections
        let fromFrames: Bool
        switch ccurl_head_has_pseudo_status(runningHandle.raw) {
        case 1: fromFrames = true
        case 0: fromFrames = false
        default: fromFrames = h2c != nil || request.url.scheme == "https"
        }
        if fromFrames {
            if let connectionSocket { connections.provedMultiplexing(connectionSocket) { Self.origin(of: request.url.absoluteString) } }
        } else {
            connections.sawHTTP2Claim = true
        }
        return fromFrames
    }

    /// Closes the file and, unless the download succeeded, removes what it wrote (or keeps it
    /// for resuming). Also called for cancelled transfers.
    func finishSink(succeeded: Bool) {
        if let sink { _ = sink.finish(succeeded: succeeded) }
    }

    /// A cancelled transfer: stops a streamed body's producer and lets go of its bytes.
    func stopBody() {
        bodyReader?.pump?.close()
    }

    /// libcurl's progress callback: throttled to about ten reports a second.
    func reportProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) {
        let offset = statusCode == 206 ? resumeOffset : 0
        latestProgress = TransferProgress(
            bytesSent: uploaded,
            totalBytesToSend: uploadTotal > 0 ? uploadTotal : request.body?.count.map(Int64.init),
            bytesReceived: downloaded + offset,
            totalBytesToReceive: downloadTotal > 0 ? downloadTotal + offset : nil
        )
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastProgressReport >= 100_000_000, let handler = request.progress, let progressQueue else { return }
        lastProgressReport = now
        let progress = latestProgress
        progressQueue.async { handler.report(progress) }
    }

    /// The figures when the transfer ended, for the last progress report.
    private func updateFinalProgress(_ handle: CurlEasyHandle) {
        guard request.progress != nil else { return }
        let offset = statusCode == 206 ? resumeOffset : 0
        let length = Int64(handle.infoOffset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T))
        let received = Int64(handle.infoOffset(CURLINFO_SIZE_DOWNLOAD_T))
        latestProgress.bytesReceived = received + offset
        latestProgress.bytesSent = Int64(handle.infoOffset(CURLINFO_SIZE_UPLOAD_T))
        if length >= 0 { latestProgress.totalBytesToReceive = length + offset }
    }

    /// A timeout for libcurl, whose 0 means "never": at least 1 ms, and 0 for durations too long to count.
    static func milliseconds(_ duration: Duration) -> Int {
        let nanoseconds = duration.clampedNanoseconds
        guard nanoseconds < .max else { return 0 }
        return max(1, Int(nanoseconds / 1_000_000))
    }

    static func versionName(_ code: Int) -> String {
        switch code {
        case CURL_HTTP_VERSION_1_0: return "1.0"
        case CURL_HTTP_VERSION_2_0: return "2"
        case CURL_HTTP_VERSION_3: return "3"
        default: return "1.1"
        }
    }
}

/// Runs `body` with the transfer behind a callback's context pointer, without retaining it: the
/// transfer loop holds it for as long as libcurl can call back, and these callbacks run for
/// every header line, body chunk and progress tick.
private func withTransfer<Result>(_ context: UnsafeMutableRawPointer?, _ body: (CurlTransfer) -> Result) -> Result {
    Unmanaged<CurlTransfer>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
}

private let curlWriteBody: ccurl_data_callback = { buffer, size, count, context in
    withTransfer(context) { $0.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count)) }
}

private let curlReceiveHeader: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    return withTransfer(context) { $0.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) } ? length : 0
}

/// libcurl's pre-request callback, with the easy handle as its context: the transfer running on
/// it decides whether the request may go out on the chosen connection.
/// libcurl created a socket for a new connection of this transfer: the tracker learns of it,
/// and the transfer may be stopped to wait for another's new connection to the same origin
/// (`CURL_SOCKOPT_ERROR` ends the attempt before it connects).
private let curlSocketOpened: ccurl_sockopt_callback = { context, socket, _ in
    // Neither retained, as for `curlConnectionChosen`.
    let opens = Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
        handle.connections.opened(socket)
        return handle.withTransfer { $0.mayOpenConnection(handle.connections) }
    }
    return opens != false ? 0 : 1  // CURL_SOCKOPT_OK, CURL_SOCKOPT_ERROR
}

private let curlConnectionChosen: ccurl_prereq_callback = { context, _, _, remotePort, localPort in
    let ports = ConnectionTracker.ports(local: Int(localPort), remote: Int(remotePort))
    // Neither retained: the loop's list of active handles holds the handle, and the handle its
    // transfer, for as long as libcurl runs it.
    let proceeds = Unmanaged<CurlEasyHandle>.fromOpaque(context!)._withUnsafeGuaranteedRef { handle in
        handle.withTransfer { $0.connectionChosen(ports: ports, connections: handle.connections) }
    }
    return proceeds != false ? ccurl_prereq_ok : ccurl_prereq_abort
}

private let curlReportProgress: ccurl_progress_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
    withTransfer(context) {
        $0.reportProgress(downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded))
    }
    return 0
}
