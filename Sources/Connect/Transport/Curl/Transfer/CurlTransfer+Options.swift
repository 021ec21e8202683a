internal import ConnectWire
import CCurl
import ConnectFutures
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

/// Setting a transfer's options on an easy handle: the URL, the method and body, the HTTP version,
/// TLS, the destination, and the options every transfer of a transport shares (where it connects
/// and as whom: CurlTransfer+Route.swift).
extension CurlTransfer {
    /// Sets every option of this request on `handle`: fresh, reset, or (for a plain transfer)
    /// holding the setup of another plain transfer of the same transport, when only this
    /// transfer's own options are set.
    ///
    /// `again`: the transfer ran on `handle` before, which was reset to start it over (see
    /// ``prepareForRestart(on:_:)``). The body reader, multipart body and file sink it made then
    /// are set again rather than made anew, and its h2c ask is left to the restart.
    func configure(_ handle: CurlEasyHandle, again: Bool = false) throws(ConnectError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        var url = request.url.absoluteString
        let unixSocketURL = _slowPath(UnixSocketURL.hasUnixScheme(url)) ? try Self.unixSocketURL(url) : nil
        if let unixSocketURL { url = unixSocketURL.transferURL }
        runningHandle = handle
        handle.setURL(url)
        handle.set(CURLOPT_WRITEDATA, pointer: context)
        handle.set(CURLOPT_HEADERDATA, pointer: context)
        // Checked here too: ``CurlTransport/send(_:)`` takes a request nothing validated.
        if let problem = request.timeoutProblem { throw .invalidRequest(problem) }
        handle.set(CURLOPT_TIMEOUT_MS, request.timeout.map(Self.milliseconds) ?? settings.timeoutMilliseconds)
        handle.writesHeadLinesAsBody(headScreen.isEnabled)
        if _slowPath(!handle.holdsPlainSetup) {
            if let problem = settings.problem { throw .invalidRequest(problem) }
            configureCommonOptions(handle)
        }
        if _slowPath(unixSocketURL != nil || request.hasOwnRoute) {
            try configureOwnRoute(handle, socketPath: unixSocketURL?.socketPath)
        }
        if let socketPath = settings.unixSocketPath, ownUnixSocketPath == nil, _slowPath(!Self.isUnixSocket(socketPath))
        {
            throw .invalidRequest("configuration.connections.unixSocketPath \(socketPath): no socket there")
        }
        if let proxies = settings.environmentProxies { try configureProxy(handle, from: proxies, url: url) }
        if let credentials = request.credentials { Self.configure(handle, credentials: credentials) }
        if let path = settings.netrc?.path, _slowPath(!FileManager.default.fileExists(atPath: path)) {
            throw .invalidRequest("configuration.netrc \(path): no file there")
        }
        if _slowPath(options?.webSocket != nil) {
            if let problem = (request.httpVersion ?? settings.httpVersion).webSocketProblem {
                throw .invalidRequest(problem)
            }
            configureWebSocketOpening(handle)
            return
        }
        if _slowPath(Self.isWebSocketURL(url)) {
            throw .invalidRequest("\(url) is a WebSocket URL: open it with connect.webSocket(_:)")
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
        if !again || connection.h2c == nil { try configureHTTPVersion(handle, url: url) }
        if _slowPath(again || options != nil) {
            configureDestinationAndProgress(handle, again: again)
        }
        handle.setHeaders(
            _slowPath(resume != nil) ? request.headers + resume!.headers : request.headers,
            adjusting: isPlainGet ? [] : headerAdjustments())
    }

    /// For ``configure(_:again:)``, a transfer that starts over, writes to a file, reports
    /// progress or has rates of its own: the range it resumes from, its file sink, its rates and
    /// its progress callback.
    @inline(never)
    func configureDestinationAndProgress(_ handle: CurlEasyHandle, again: Bool) {
        if !again, case .file(let url, let resuming)? = options?.destination {
            let sink = FileSink(destination: url, resuming: resuming)
            self.sink = sink
            if resuming {
                resume = ResumeRequest(
                    requestNamesEncoding: request.headers.contains(name: "Accept-Encoding"),
                    partialFile: sink.partialFileToContinue())
            }
        }
        // A plain Range header rather than CURLOPT_RESUME_FROM_LARGE, which fails the transfer
        // when the server answers 200; here that starts the file over instead.
        if let range = resume?.range { handle.set(CURLOPT_RANGE, range) }
        if let rate = options?.maximumReceiveRate { handle.set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: curl_off_t(rate)) }
        if let rate = options?.maximumSendRate { handle.set(CURLOPT_MAX_SEND_SPEED_LARGE, offset: curl_off_t(rate)) }
        if options?.progress != nil {
            handle.set(CURLOPT_NOPROGRESS, 0)
            ccurl_easy_setopt_progress_callback(handle.raw, Self.progressCallback)
            handle.set(CURLOPT_XFERINFODATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// How libcurl's own headers change for a request with a method or body options (a plain GET
    /// needs no change): `Expect` left out on a body, the form type libcurl claims for a POST that
    /// names no type left out, and an empty length added to a POST without a body.
    @inline(never)
    func headerAdjustments() -> CurlEasyHandle.HeaderAdjustments {
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
    func configureCommonOptions(_ handle: CurlEasyHandle) {
        handle.set(CURLOPT_NOSIGNAL, 1)
        handle.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(handle.errorBuffer))
        handle.setDataCallback(CURLOPT_WRITEFUNCTION, Self.bodyCallback)
        handle.setDataCallback(CURLOPT_HEADERFUNCTION, Self.headerCallback)
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
        // Closed on exec: a process the app spawns must not hold a connection open.
        ccurl_easy_setopt_open_socket_closed_on_exec(handle.raw)
        ccurl_easy_setopt_sockopt_callback(handle.raw, Self.socketOpenedCallback)
        handle.set(CURLOPT_SOCKOPTDATA, pointer: Unmanaged.passUnretained(handle).toOpaque())
        ccurl_easy_setopt_closesocket_callback(handle.raw, ConnectionTracker.socketClosingCallback)
        handle.set(CURLOPT_CLOSESOCKETDATA, pointer: tracker)
        ccurl_easy_setopt_prereq_callback(handle.raw, Self.connectionChosenCallback)
        handle.set(CURLOPT_PREREQDATA, pointer: Unmanaged.passUnretained(handle).toOpaque())
        ccurl_easy_setopt_resolver_start_callback(handle.raw, Self.resolverStartedCallback)
        handle.set(CURLOPT_RESOLVER_START_DATA, pointer: Unmanaged.passUnretained(handle).toOpaque())
        setConnectTimeout(on: handle)
        handle.set(CURLOPT_TCP_KEEPALIVE, 1)
        // Redirects are followed above the transport (see RedirectFollower), hop by hop, so that
        // every hop gets the same checks, TLS pins included; libcurl must not follow them itself.
        handle.set(CURLOPT_FOLLOWLOCATION, 0)
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Literal dot-segments are removed before the URL is handed over; encoded ones are data
        // (see DotSegments).
        handle.set(CURLOPT_PATH_AS_IS, 1)
        configureTLS(handle, settings.tls)
        configureConnections(handle, settings.connections)
        // Only the configured proxy, or none: left unset, libcurl reads http_proxy, all_proxy and
        // no_proxy from the environment, and on every transfer. Without a proxy the bypass list
        // is set empty too: libcurl otherwise still looks up no_proxy and NO_PROXY for each
        // transfer, to bypass a proxy there is none of.
        // (The environment's proxies, when asked for, are set per request by its scheme.)
        if let proxy = settings.proxy {
            handle.set(CURLOPT_PROXY, proxy.url)
            // Negotiate takes the system's GSS-API credentials, not a user name; libcurl answers
            // a proxy's challenge only when it has one, so an empty one stands in.
            if let username = proxy.username ?? (proxy.schemes.contains(.negotiate) ? "" : nil) {
                handle.set(CURLOPT_PROXYUSERNAME, username)
            }
            if let password = proxy.password { handle.set(CURLOPT_PROXYPASSWORD, password) }
            if proxy.schemes != .basic { handle.set(CURLOPT_PROXYAUTH, Self.curlAuthentication(proxy.schemes)) }
            handle.set(CURLOPT_NOPROXY, proxy.bypassHosts.joined(separator: ","))
        } else {
            handle.set(CURLOPT_PROXY, "")
            handle.set(CURLOPT_NOPROXY, "")
        }
        if let netrc = settings.netrc {
            // Optional: credentials in the URL win over the file's.
            handle.set(CURLOPT_NETRC, ccurl_netrc_optional)
            if let path = netrc.path { handle.set(CURLOPT_NETRC_FILE, path) }
        }
    }

    @inline(never)
    func configureMethodAndBody(_ handle: CurlEasyHandle, again: Bool) throws(ConnectError) {
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

    /// Whether `url`, a request's URL as text, http or https, is https: its fifth letter tells.
    @inline(__always)
    static func isHTTPS(_ url: String) -> Bool {
        // Read from the contiguous bytes: slicing the UTF-8 view costs more than the rest, and
        // `withUTF8` on a copy retains the string.
        url.utf8.withContiguousStorageIfAvailable { $0.count > 4 && $0[4] | 0x20 == UInt8(ascii: "s") }
            ?? (url.utf8.dropFirst(4).first.map { $0 | 0x20 == UInt8(ascii: "s") } ?? false)
    }

    /// `url`: the request's URL as text, http or https.
    func configureHTTPVersion(_ handle: CurlEasyHandle, url: String) throws(ConnectError) {
        let isHTTPS = Self.isHTTPS(url)
        let policy = request.httpVersion ?? settings.httpVersion
        if let fallback = settings.alternativeFallback, _slowPath(isHTTPS), policy.allowsHTTP3,
            !state.fellBackFromAlternative
        {
            if configureAlternative(handle, fallback: fallback) { return }
        }
        switch policy.choice {
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
            let origin = ownUnixSocketPath == nil ? Self.origin(of: url) : connectionOrigin()
            ask(handle.connections.priorKnowledge.ask(for: origin), for: origin, handle)
        case .http3:
            // libcurl tries QUIC and TCP side by side and keeps the first that answers.
            let triesQUIC = isHTTPS && LibcurlFeatures.running.hasHTTP3
            handle.setHTTPVersion(
                triesQUIC ? CURL_HTTP_VERSION_3 : CURL_HTTP_VERSION_2TLS, waitingForMultiplexing: isHTTPS)
        case .http3Only:
            let libcurl = LibcurlFeatures.running
            if let problem = policy.problem(
                isHTTPS: isHTTPS, libcurlHasHTTP3: libcurl.hasHTTP3, libcurl: libcurl.description)
            {
                throw .invalidRequest(problem)
            }
            handle.setHTTPVersion(CURL_HTTP_VERSION_3ONLY, waitingForMultiplexing: true)
        }
    }

    /// Asks libcurl for h2c as `ask` says, waiting for a connection being opened to the origin
    /// rather than opening another.
    func ask(_ ask: PriorKnowledgeConnections.Ask, for origin: String, _ handle: CurlEasyHandle) {
        connection.asked(ask, for: origin)
        handle.setHTTPVersion(
            ask == .priorKnowledge ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2_0,
            waitingForMultiplexing: true)
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
            return String(unsafeUninitializedCapacity: count + (hasPort ? 0 : defaultPort.utf8CodeUnitCount)) {
                origin in
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

    /// Trust and pinning are set on every transfer, so every redirect hop is checked too.
    func configureTLS(_ handle: CurlEasyHandle, _ tls: TLSConfiguration) {
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
    var bodyGoesWithHead: Bool {
        guard case .data(let data)? = request.body?.content else { return false }
        return !data.isEmpty && data.count <= Self.largestBodySentWithHead
    }

    /// A small body in memory, copied into libcurl (`CURLOPT_COPYPOSTFIELDS`), which writes it
    /// with the request head: one write and one segment for the whole request, where a body read
    /// through the read callback goes out in a write of its own after the head, costing a system
    /// call and a segment more, on both sides. libcurl treats the request as a POST; another
    /// method keeps its name through `CURLOPT_CUSTOMREQUEST`, and libcurl's form content type is
    /// left out unless the request names one.
    func sendWithHead(_ data: Data, _ handle: CurlEasyHandle) {
        // The size first: it makes the copy binary-safe rather than stop at a NUL byte.
        handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(data.count))
        data.withUnsafeBytes { bytes in
            handle.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
    }

    /// Makes the request body and sets it on `handle`.
    func setBody(_ body: RequestBody, _ handle: CurlEasyHandle) throws(ConnectError) {
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
                if let self { loop.enqueue(.resume(self)) }
            }
            try streamBody(from: BodyReader(pump: pump), size: body.count.map(Int64.init) ?? -1, handle)
        }
    }

    /// Sets again the body this transfer made when it first ran, on its handle reset to start
    /// over (see ``rewindsForReset()``): the reader or the multipart body. Returns false for a
    /// body made anew each time, a small one copied into libcurl.
    func setBodyAgain(_ body: RequestBody, _ handle: CurlEasyHandle) throws(ConnectError) -> Bool {
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
    func streamBody(from reader: BodyReader, size: Int64, _ handle: CurlEasyHandle) throws(ConnectError) {
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
    func attachMultipart(_ parts: [FormPart], _ handle: CurlEasyHandle) throws(ConnectError) {
        guard let mime = curl_mime_init(handle.raw) else {
            throw .transport(
                TransportFailure(
                    kind: .other, message: "curl_mime_init failed", requestSent: false,
                    curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue)))
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
                    ccurl_mime_data_cb(
                        part, curl_off_t(data.count), curlReadBody, curlSeekBody, curlReleaseReader, reader)
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

    /// A timeout for libcurl, whose 0 means "never": at least 1 ms, and 0 for durations too long to count.
    static func milliseconds(_ duration: Duration) -> Int {
        let nanoseconds = duration.clampedNanoseconds
        guard nanoseconds < .max else { return 0 }
        return max(1, Int(nanoseconds / 1_000_000))
    }
}
