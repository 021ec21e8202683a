internal import ConnectWire
import CCurl

/// A libcurl easy handle and its error buffer; reused across transfers by the transfer loop.
/// Used by the transfer thread only.
final class CurlEasyHandle {
    /// The easy handle; replaced by a fresh one only by ``renew()``. `@exclusivity(unchecked)`:
    /// the transfer thread alone touches it, and every option and info call reads it.
    @exclusivity(unchecked) private(set) var raw: UnsafeMutableRawPointer
    /// libcurl writes a readable message here when a transfer fails.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Holds the options of plain transfers (see ``CurlTransfer/isPlain``) and nothing else, so
    /// another plain transfer needs only its own few options: no reset, no common options again.
    var holdsPlainSetup = false
    /// The last transfer set method or body options (a POST, a body, HEAD, another method)
    /// that the next plain transfer must undo; see ``undoMethodOptions()``.
    var carriesMethodOptions = false
    /// libcurl hands the write callback the head lines too (`CURLOPT_HEADER`), for a transfer
    /// that screens them (see ``HeadScreen``).
    private var writesHeadLines = false
    /// It runs a WebSocket opening, in the loop's multi handle for WebSocket connections (see
    /// ``TransferLoop/webSocketMulti``), not the main one.
    var opensWebSocket = false
    /// The transfer running on this handle, while it is in the multi handle; libcurl's
    /// `CURLOPT_PRIVATE` points back here, so a finished handle leads to its transfer without a
    /// lookup.
    var transfer: CurlTransfer?
    /// Where this handle sits in the transfer loop's list of active handles.
    var activeIndex = -1
    /// The header list given to libcurl, owned here, and what it was built from: a transfer with
    /// the same headers as the last one on this handle (the common case) reuses it instead of
    /// building one (two allocations per header) and freeing it again.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The `CURLOPT_CONNECT_TO` entries, kept while libcurl may read them, and the list made of them.
    private var connectTo: (entries: [String], list: UnsafeMutablePointer<curl_slist>?) = ([], nil)
    /// The URL of the last transfer, parsed by libcurl (see ``setURL(_:)``), and its text.
    private var parsedURL: OpaquePointer?
    private var parsedURLText = ""
    /// That text as it goes out, without its literal dot-segments.
    private var sentURLText = ""
    private var headerListSource: (headers: [HTTPHeader], adjustments: HeaderAdjustments) = ([], [])
    /// The transport's record of its connections, which libcurl's socket callbacks fill in.
    let connections: ConnectionTracker
    /// The `CURLOPT_HTTP_VERSION` and `CURLOPT_PIPEWAIT` last set (libcurl's defaults after a
    /// reset): a handle that keeps its setup sets them again only when they change.
    private var httpVersionOption = CURL_HTTP_VERSION_2TLS
    private var waitsForMultiplexing = false
    /// The connect timeout set for the running transfer's attempt, and whether libcurl holds a
    /// longer one while the transfer waits in its queue (see ``extendConnectTimeout(to:)``).
    private(set) var connectTimeout: Duration = .zero
    private var connectTimeoutExtended = false

    /// Headers libcurl adds by itself that a request may need left out, and one it leaves out
    /// that a request may need.
    struct HeaderAdjustments: OptionSet, Equatable {
        let rawValue: UInt8
        /// `Expect: 100-continue`, which costs a round trip on uploads to servers that never answer it.
        static let expect = HeaderAdjustments(rawValue: 1)
        /// The `Content-Type: application/x-www-form-urlencoded` libcurl claims for every POST
        /// that did not name a type, a body or not.
        static let contentType = HeaderAdjustments(rawValue: 2)
        /// `Content-Length: 0`, added: a POST without a body goes out as a custom method with no
        /// body options, so that HTTP/2 ends its stream with the headers (as `curl -X POST`
        /// does; libcurl would otherwise send an empty DATA frame after them, which some servers
        /// mishandle), and libcurl then sends no length of its own.
        static let emptyBodyLength = HeaderAdjustments(rawValue: 4)
    }

    init?(connections: ConnectionTracker) {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        self.connections = connections
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        pointPrivateAtSelf()
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_url_cleanup(parsedURL)
        curl_slist_free_all(headerList)
        curl_slist_free_all(connectTo.list)
        errorBuffer.deallocate()
    }

    /// Sets the request's URL: its text, and the same URL already parsed.
    ///
    /// Given only the text (`CURLOPT_URL`), libcurl 7.88 parses it for every transfer and then
    /// writes it out again, normalized, through its `printf`: about 11,000 instructions for a
    /// short URL, a tenth of a GET's. Given a parsed URL as well (`CURLOPT_CURLU`), it copies
    /// that one's parts instead and keeps the text as given. The parse is libcurl's own, with
    /// the flags it gives itself, so the request it sends is the same; the handle keeps its last
    /// parse for a transfer to the same URL, the common case. A URL libcurl cannot parse is left
    /// to libcurl, which then fails the transfer as it would have.
    ///
    /// The path goes out as it is (`CURLU_PATH_AS_IS`, and `CURLOPT_PATH_AS_IS` among the common
    /// options) once its literal dot-segments are removed: see ``DotSegments``.
    func setURL(_ text: String) {
        if parsedURL == nil || text != parsedURLText {
            let url = DotSegments.removing(fromURL: text)
            set(CURLOPT_URL, url)
            let parsed = curl_url()
            let flags = UInt32(CURLU_GUESS_SCHEME) | UInt32(CURLU_NON_SUPPORT_SCHEME) | UInt32(CURLU_PATH_AS_IS)
            guard let parsed, curl_url_set(parsed, CURLUPART_URL, url, flags) == CURLUE_OK else {
                curl_url_cleanup(parsed)
                set(CURLOPT_CURLU, pointer: nil)
                return
            }
            // Given to libcurl before the old one is freed, which it may not hold any more.
            set(CURLOPT_CURLU, pointer: UnsafeMutableRawPointer(parsed))
            curl_url_cleanup(parsedURL)
            parsedURL = parsed
            parsedURLText = text
            sentURLText = url
            return
        }
        set(CURLOPT_URL, sentURLText)
        set(CURLOPT_CURLU, pointer: UnsafeMutableRawPointer(parsedURL))
    }

    /// Sets the request headers, with libcurl's own changed as `adjustments` says.
    ///
    /// Connect's `Accept-Encoding` (every coding ``ContentDecoder`` decodes) is one of these
    /// headers, unless the request names its own, rather than `CURLOPT_ACCEPT_ENCODING`: libcurl
    /// formats a request head one byte at a time through its `printf`, about 65 instructions a
    /// byte, and formats the header that option makes twice, once on its own and once into the
    /// head, where a header of this list is formatted once.
    func setHeaders(_ headers: [HTTPHeader], adjusting adjustments: HeaderAdjustments) {
        if headerList == nil || headerListSource.adjustments != adjustments || headerListSource.headers != headers {
            curl_slist_free_all(headerList)
            var list: UnsafeMutablePointer<curl_slist>?
            for header in headers {
                // libcurl drops a header given as "Name:" and sends "Name;" as an empty one.
                let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
                list = curl_slist_append(list, line)
            }
            if !headers.contains(name: "Accept-Encoding") {
                list = curl_slist_append(list, Self.acceptEncodingLine)
            }
            // "Name:" with no value tells libcurl to leave out a header it would add.
            if adjustments.contains(.expect) { list = curl_slist_append(list, "Expect:") }
            if adjustments.contains(.contentType) { list = curl_slist_append(list, "Content-Type:") }
            if adjustments.contains(.emptyBodyLength) { list = curl_slist_append(list, "Content-Length: 0") }
            headerList = list
            headerListSource = (headers, adjustments)
        }
        set(CURLOPT_HTTPHEADER, slist: headerList)
    }

    /// The `Accept-Encoding` header Connect sends when a request has none.
    private static let acceptEncodingLine = "Accept-Encoding: \(ContentDecoder.Coding.acceptEncoding)"

    /// Clears every option for the next transfer; open connections and caches are kept by the
    /// multi handle.
    func reset() {
        curl_easy_reset(raw)
        forgetOptions()
    }

    /// Replaces the easy handle with a fresh one, with no options set, for a libcurl that keeps
    /// state across a handle's transfers which a reset does not clear (see
    /// ``LibcurlDefects/keepsFreedHeaderAcrossTransfers``). Open connections stay with the multi
    /// handle. False when libcurl could not make a handle; this one is then unusable.
    func renew() -> Bool {
        guard let fresh = curl_easy_init() else { return false }
        curl_easy_cleanup(raw)
        raw = fresh
        forgetOptions()
        return true
    }

    /// After a reset or a fresh handle: `CURLOPT_PRIVATE` points back here again, and what this
    /// object remembers of the options set is libcurl's defaults.
    private func forgetOptions() {
        pointPrivateAtSelf()
        errorBuffer[0] = 0
        holdsPlainSetup = false
        carriesMethodOptions = false
        writesHeadLines = false
        httpVersionOption = CURL_HTTP_VERSION_2TLS
        waitsForMultiplexing = false
        connectTimeout = .zero
        connectTimeoutExtended = false
    }

    /// Asks for the HTTP version `option` (a `CURL_HTTP_VERSION_*`), and whether to wait for a
    /// connection being opened to the same origin to see if it multiplexes, rather than open
    /// another.
    func setHTTPVersion(_ option: Int, waitingForMultiplexing: Bool) {
        if option != httpVersionOption {
            set(CURLOPT_HTTP_VERSION, option)
            if (option == CURL_HTTP_VERSION_1_1) != (httpVersionOption == CURL_HTTP_VERSION_1_1) {
                // libcurl 7.88 lets a request that wants HTTP/2 reuse a TLS connection opened
                // for HTTP/1.1 only (the reverse it refuses), so one HTTP/1.1-only endpoint would
                // take the others of its host off HTTP/2. Connections are matched on their TLS
                // options, so HTTP/1.1-only ones get their own: `CURLSSLOPT_NO_REVOKE` matters
                // only to Schannel (Windows), and changes nothing for OpenSSL, LibreSSL or GnuTLS.
                set(CURLOPT_SSL_OPTIONS, option == CURL_HTTP_VERSION_1_1 ? Int(CURLSSLOPT_NO_REVOKE) : 0)
            }
            httpVersionOption = option
        }
        if waitingForMultiplexing != waitsForMultiplexing {
            set(CURLOPT_PIPEWAIT, waitingForMultiplexing ? 1 : 0)
            waitsForMultiplexing = waitingForMultiplexing
        }
    }

    /// Has libcurl hand the write callback each head line before it stores it (`CURLOPT_HEADER`),
    /// or not: set only when it changes.
    func writesHeadLinesAsBody(_ writes: Bool) {
        if writes != writesHeadLines {
            set(CURLOPT_HEADER, writes ? 1 : 0)
            writesHeadLines = writes
        }
    }

    /// Back to a GET without a body, the state of a plain setup, from whatever method and body
    /// options the last transfer set (see ``CurlTransfer/configureMethodAndBody``): cheaper than a
    /// reset and the common options again.
    func undoMethodOptions() {
        // Frees a body copied into libcurl; it also makes the request a POST, which HTTPGET
        // then undoes.
        set(CURLOPT_POSTFIELDS, pointer: nil)
        // HTTPGET also turns CURLOPT_POST, CURLOPT_UPLOAD and CURLOPT_NOBODY off.
        set(CURLOPT_HTTPGET, 1)
        set(CURLOPT_CUSTOMREQUEST, pointer: nil)
        set(CURLOPT_POSTFIELDSIZE_LARGE, offset: -1)
        set(CURLOPT_INFILESIZE_LARGE, offset: -1)
        set(CURLOPT_UPLOAD_BUFFERSIZE, 64 << 10)
        // The body's reader is gone with its transfer: nothing may point at it.
        set(CURLOPT_READDATA, pointer: nil)
        set(CURLOPT_SEEKDATA, pointer: nil)
        carriesMethodOptions = false
    }

    /// Sets the attempt's connect timeout (`CURLOPT_CONNECTTIMEOUT_MS`).
    func setConnectTimeout(_ timeout: Duration) {
        connectTimeout = timeout
        connectTimeoutExtended = false
        set(CURLOPT_CONNECTTIMEOUT_MS, CurlTransfer.milliseconds(timeout))
    }

    /// Gives libcurl `timeout` for connecting instead of the attempt's own, while the transfer
    /// waits in libcurl's queue (see ``QueuedConnectClock``). A plain option set directly, as
    /// libcurl reads it each time it checks the timeout; the handle no longer holds the plain
    /// setup, so that the next transfer on it has the option set again.
    func extendConnectTimeout(to timeout: Duration) {
        connectTimeoutExtended = true
        holdsPlainSetup = false
        set(CURLOPT_CONNECTTIMEOUT_MS, CurlTransfer.milliseconds(timeout))
    }

    /// Gives libcurl the attempt's own connect timeout again, for a transfer starting over after
    /// it waited with a longer one.
    func restoreConnectTimeout() {
        if connectTimeoutExtended { setConnectTimeout(connectTimeout) }
    }

    func set(_ option: CURLoption, _ value: Int) {
        ccurl_easy_setopt_long(raw, option, value)
    }

    func set(_ option: CURLoption, offset value: curl_off_t) {
        ccurl_easy_setopt_off_t(raw, option, value)
    }

    func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options.
        _ = value.withCString { ccurl_easy_setopt_string(raw, option, $0) }
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) {
        ccurl_easy_setopt_pointer(raw, option, value)
    }

    func set(_ option: CURLoption, slist value: UnsafeMutablePointer<curl_slist>?) {
        ccurl_easy_setopt_slist(raw, option, value)
    }

    /// Sets `CURLOPT_CONNECT_TO` to `entries`, making the list only when they changed.
    func setConnectTo(_ entries: [String]) {
        if connectTo.list == nil || connectTo.entries != entries {
            curl_slist_free_all(connectTo.list)
            var list: UnsafeMutablePointer<curl_slist>?
            for entry in entries { list = curl_slist_append(list, entry) }
            connectTo = (entries, list)
        }
        set(CURLOPT_CONNECT_TO, slist: connectTo.list)
    }

    func setDataCallback(_ option: CURLoption, _ callback: ccurl_data_callback) {
        ccurl_easy_setopt_data_callback(raw, option, callback)
    }

    /// The handle object of a raw easy handle made here: its `CURLOPT_PRIVATE` points back at
    /// it from creation on, and again after every reset.
    static func owner(of raw: UnsafeMutableRawPointer) -> CurlEasyHandle? {
        var pointer: UnsafeMutableRawPointer?
        ccurl_easy_getinfo_pointer(raw, CURLINFO_PRIVATE, &pointer)
        return pointer.map { Unmanaged<CurlEasyHandle>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with the transfer running on this handle, without retaining it; `nil` when
    /// none runs. `body` must not end the transfer's time on the handle (set `transfer`), which
    /// may release it: the handle's reference is what keeps it alive for the call.
    @inline(__always)
    func withTransfer<Result>(_ body: (CurlTransfer) -> Result) -> Result? {
        guard let running = transfer.map(Unmanaged.passUnretained) else { return nil }
        return running._withUnsafeGuaranteedRef(body)
    }

    /// Unretained: the transfer loop keeps the handle alive while libcurl knows it.
    private func pointPrivateAtSelf() {
        set(CURLOPT_PRIVATE, pointer: Unmanaged.passUnretained(self).toOpaque())
    }

    func infoLong(_ info: CURLINFO) -> Int {
        var value = 0
        ccurl_easy_getinfo_long(raw, info, &value)
        return value
    }

    func infoOffset(_ info: CURLINFO) -> curl_off_t {
        var value: curl_off_t = 0
        ccurl_easy_getinfo_off_t(raw, info, &value)
        return value
    }

    /// A `*_TIME_T` info, which libcurl gives in microseconds.
    func infoDuration(_ info: CURLINFO) -> Duration {
        .microseconds(infoOffset(info))
    }

    func infoString(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        ccurl_easy_getinfo_string(raw, info, &value)
        return value.map { String(cString: $0) }
    }

    /// The cookie engine's cookies, one line each in the Netscape format (`CURLINFO_COOKIELIST`).
    func cookieList() -> [String] {
        var list: UnsafeMutableRawPointer?
        guard ccurl_easy_getinfo_pointer(raw, CURLINFO_COOKIELIST, &list) == CURLE_OK, let list else { return [] }
        let first = list.assumingMemoryBound(to: curl_slist.self)
        defer { curl_slist_free_all(first) }
        var lines: [String] = []
        var item: UnsafeMutablePointer<curl_slist>? = first
        while let current = item {
            if let data = current.pointee.data { lines.append(String(cString: data)) }
            item = current.pointee.next
        }
        return lines
    }

    /// The error buffer's text, or libcurl's generic text for `code` (see ``CurlFailureMessage``).
    func errorMessage(for code: CURLcode) -> String {
        CurlFailureMessage.text(code: code, firstMessage: String(cString: errorBuffer)) {
            LibcurlFeatures.running.tlsLibraryIsOpenSSL ? infoLong(CURLINFO_SSL_VERIFYRESULT) : nil
        }
    }
}
