import CCurl
import ConnectFutures
import Dispatch
import Foundation

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
    let promise: Promise<Response>
    let settings: CurlTransport.Settings
    /// Where a cancellation of the promise is sent.
    let loop: TransferLoop

    // `@exclusivity(unchecked)` on the state below: see the type's comment; the transfer thread
    // touches it one access at a time, and dynamic exclusivity checks were a visible cost.
    var statusCode = 0
    /// The header lines and body received, from the transfer loop's pool; set when the transfer
    /// starts, handed on when it succeeds.
    @exclusivity(unchecked) var received: ReceivedResponse?
    /// The `Content-Range` of the response, looked up once for a file sink.
    @exclusivity(unchecked) var contentRange: String??
    @exclusivity(unchecked) var bodyTooLarge = false
    /// The request body's bytes, from memory or disk.
    @exclusivity(unchecked) var bodyReader: BodyReader?
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
    /// Keeps the transport (and so its thread) alive while this transfer is in flight, so that
    /// releasing the last reference to a `Connect` never cancels the requests it started.
    @exclusivity(unchecked) var owner: CurlTransport?

    init(request: Request, settings: CurlTransport.Settings, context: FutureContext, loop: TransferLoop) {
        self.request = request
        self.settings = settings
        self.loop = loop
        // The context binds the future to the callback queue: the transfer thread completes the
        // promise, and every observer and step runs on the queue, never on the transfer thread.
        promise = Promise(context: context)
        // `self.request`: reading the argument after it was stored would copy the whole request.
        if self.request.progress != nil {
            progressQueue = DispatchQueue(label: "connect.progress", target: context.callbackQueue)
        }
    }

    deinit {
        curl_mime_free(mime)
    }

    /// The future was cancelled: stop the transfer (on the transfer thread).
    func promiseWasCancelled() {
        loop.send(.cancel(self))
    }

    /// A GET into memory with nothing but headers of its own: no body, file, range, progress or
    /// stream. A handle that ran one keeps its options for the next (see
    /// ``CurlEasyHandle/holdsPlainSetup``): resetting the handle and setting the options every
    /// transfer of a transport shares was a tenth of the transfer thread's work per request.
    ///
    /// Not with a cookie file: a handle that keeps `CURLOPT_COOKIEJAR` writes the jar again when
    /// it is cleaned up, later and on the transfer thread, where a reset handle does not; a new
    /// client reading the same file could then read it half written.
    var isPlain: Bool {
        request.method == .get && request.body == nil && request.progress == nil && request.streamBuffer == nil
            && { if case .memory = request.destination { return true } else { return false } }()
            && { if case .file = settings.cookies { return false } else { return true } }()
    }

    /// Sets every option of this request on `handle`: fresh, reset, or (for a plain transfer)
    /// holding the setup of another plain transfer of the same transport, when only this
    /// transfer's own options are set.
    func configure(_ handle: CurlEasyHandle) throws(ConnectError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        handle.set(CURLOPT_URL, request.url.absoluteString)
        handle.set(CURLOPT_WRITEDATA, pointer: context)
        handle.set(CURLOPT_HEADERDATA, pointer: context)
        handle.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout ?? settings.timeout))
        if !handle.holdsPlainSetup {
            configureCommonOptions(handle)
        }

        try configureMethodAndBody(handle)
        if case .file(let url, let resuming) = request.destination {
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
            handle.set(CURLOPT_XFERINFODATA, pointer: context)
        }

        // Waiting for "100 Continue" costs a round trip on every upload to servers that never send it.
        handle.setHeaders(request.headers, suppressesExpect: request.body != nil && !request.headers.contains(name: "Expect"))
    }

    /// The options every transfer of this transport sets alike.
    private func configureCommonOptions(_ handle: CurlEasyHandle) {
        handle.set(CURLOPT_NOSIGNAL, 1)
        handle.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(handle.errorBuffer))
        handle.setDataCallback(CURLOPT_WRITEFUNCTION, curlWriteBody)
        handle.setDataCallback(CURLOPT_HEADERFUNCTION, curlReceiveHeader)
        // Every decoder this libcurl was built with (gzip, deflate, br, zstd on Debian).
        handle.set(CURLOPT_ACCEPT_ENCODING, "")
        handle.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(settings.connectTimeout))
        handle.set(CURLOPT_TCP_KEEPALIVE, 1)
        // Redirects are followed above the transport (see RedirectFollower), hop by hop, so that
        // every hop gets the same checks, TLS pins included; libcurl must not follow them itself.
        handle.set(CURLOPT_FOLLOWLOCATION, 0)
        handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        configureTLS(handle, settings.tls)
        // Only the configured proxy, or none: left unset, libcurl reads http_proxy, all_proxy and
        // no_proxy from the environment, and on every transfer.
        if let proxy = settings.proxy {
            handle.set(CURLOPT_PROXY, proxy.url)
            if let username = proxy.username { handle.set(CURLOPT_PROXYUSERNAME, username) }
            if let password = proxy.password { handle.set(CURLOPT_PROXYPASSWORD, password) }
            handle.set(CURLOPT_NOPROXY, proxy.bypassHosts.joined(separator: ","))
        } else {
            handle.set(CURLOPT_PROXY, "")
        }
    }

    private func configureMethodAndBody(_ handle: CurlEasyHandle) throws(ConnectError) {
        let method = request.method
        if let body = request.body {
            switch body.content {
            case .data(let data):
                try streamBody(from: BodyReader(data: data), size: Int64(data.count), handle)
            case .file(let url, let size):
                guard let reader = BodyReader(fileAt: url) else {
                    throw .invalidRequest("the file \(url.path.debugDescription) cannot be read")
                }
                try streamBody(from: reader, size: size, handle)
            case .multipart(let parts):
                try attachMultipart(parts, handle)
            }
            if method != .post { handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
        } else if method == .head {
            handle.set(CURLOPT_NOBODY, 1)
        } else if method == .post {
            handle.set(CURLOPT_POST, 1)
            handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
        } else if method != .get {
            handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue)
        }
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
            throw .transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_mime_init failed", requestSent: false)
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
    func outcome(code: CURLcode, handle: CurlEasyHandle) -> Result<ReceivedResponse, any Error> {
        let bytesSent = handle.infoLong(CURLINFO_REQUEST_SIZE)
        let requestSent = bytesSent > 0
        updateFinalProgress(handle)
        guard code == CURLE_OK else {
            let sinkError = sink?.error
            finishSink(succeeded: false)
            if let sinkError { return .failure(sinkError) }
            if bodyTooLarge { return .failure(ConnectError.responseTooLarge(limit: settings.maximumBodySize)) }
            return .failure(ConnectError(curlCode: code, message: handle.errorMessage(for: code), requestSent: requestSent))
        }
        var fileURL: URL?
        if let sink, (200..<300).contains(statusCode) {
            if let error = sink.finish(succeeded: true) { return .failure(error) }
            fileURL = sink.destination
        } else {
            finishSink(succeeded: false)
        }
        guard let received else {  // the loop gives every transfer one before it starts
            return .failure(ConnectError.transport(code: Int(CURLE_FAILED_INIT.rawValue), message: "no response buffers", requestSent: requestSent))
        }
        self.received = nil
        received.statusCode = statusCode
        received.httpVersion = Self.versionName(handle.infoLong(CURLINFO_HTTP_VERSION))
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
        received.fileURL = fileURL
        received.resumed = sink?.resumed ?? false
        return .success(received)
    }

    // MARK: Callbacks, on the transfer thread

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let received else { return 0 }
        if let stream = request.streamBuffer, (200..<300).contains(statusCode) {
            let accepted = stream.offer(bytes, head: Response(statusCode: statusCode, rawHeaders: received.headers.copy(), url: request.url))
            // A full buffer pauses the transfer: libcurl keeps these bytes and stops reading
            // the socket until the consumer asks for more.
            return accepted ? bytes.count : ccurl_writefunc_pause
        }
        if let sink, (200..<300).contains(statusCode) {
            // Only a success goes to the file: an error page stays in memory for the error handler.
            if contentRange == nil { contentRange = .some(received.headers.value(for: "Content-Range")) }
            return sink.write(bytes, status: statusCode, contentRange: contentRange ?? nil, resumeOffset: resumeOffset) ? bytes.count : 0
        }
        if received.body.count + bytes.count > settings.maximumBodySize {
            bodyTooLarge = true
            return 0
        }
        return received.body.append(bytes) ? bytes.count : 0
    }

    /// One header line from libcurl: kept as bytes (see ``RawHeaders``), with the status line
    /// and `Content-Length` read at the byte level. Going through `String` trimming (Foundation)
    /// here once cost a quarter of the client's CPU time in the benchmark.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let received else { return false }
        if bytes.count >= 5, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "T"),
            bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/")
        {
            // A new status line: an interim 1xx or a redirect came before; start over.
            received.headers.removeAll()
            contentRange = nil
            statusCode = Self.statusCode(inStatusLine: bytes)
            return true
        }
        // The blank line that ends the headers; anything else is kept as it came.
        guard bytes.count > 2 else { return true }
        received.headers.append(line: bytes)
        // Only a Content-Length line is looked into.
        guard bytes.count > 15, bytes[0] | 0x20 == UInt8(ascii: "c"), sink == nil, request.streamBuffer == nil,
            Self.equalsIgnoringCase(UnsafeRawBufferPointer(rebasing: bytes[..<14]), "content-length"),
            let (name, value) = RawHeaders.split(bytes), name.count == 14
        else { return true }
        if let length = Self.decimal(UnsafeRawBufferPointer(rebasing: bytes[value])) {
            if length > settings.maximumBodySize, statusCode >= 200, !(300..<400).contains(statusCode) {
                bodyTooLarge = true
                return false
            }
            if received.body.isEmpty { received.body.reserveCapacity(length) }
        }
        return true
    }

    /// The code in "HTTP/1.1 200 OK" or "HTTP/2 404".
    static func statusCode(inStatusLine line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return 0 }
        var code = 0
        var index = space + 1
        while index < line.count, index < space + 4, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]) {
            code = code * 10 + Int(line[index] - UInt8(ascii: "0"))
            index += 1
        }
        return code
    }

    /// `HTTPHeader.equalIgnoringASCIICase` for bytes against a lowercase literal, folding only
    /// `bytes`: this runs on header lines of every response on the transfer thread, where the
    /// general comparison, folding both sides, cost 450 instructions a request more.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercaseASCII: StaticString) -> Bool {
        guard bytes.count == lowercaseASCII.utf8CodeUnitCount else { return false }
        let expected = lowercaseASCII.utf8Start
        for index in 0..<bytes.count where HTTPHeader.foldedASCII(bytes[index]) != expected[index] {
            return false
        }
        return true
    }

    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Closes the file and, unless the download succeeded, removes what it wrote (or keeps it
    /// for resuming). Also called for cancelled transfers.
    func finishSink(succeeded: Bool) {
        _ = sink?.finish(succeeded: succeeded)
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

private let curlReportProgress: ccurl_progress_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
    withTransfer(context) {
        $0.reportProgress(downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded))
    }
    return 0
}
