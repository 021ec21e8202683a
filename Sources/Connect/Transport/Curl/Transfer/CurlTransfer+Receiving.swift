internal import ConnectWire
import CCurl
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What libcurl's callbacks hand a transfer on the transfer thread: header lines, body bytes and
/// progress. Each callback, a C function pointer, sits beside the method it calls.
extension CurlTransfer {
    /// Runs `body` with the transfer behind a callback's `context`, without retaining it: the
    /// transfer loop holds it for as long as libcurl can call back, and the callbacks below run
    /// for every header line, body chunk and progress tick.
    private static func withTransfer<Result>(
        _ context: UnsafeMutableRawPointer?, _ body: (CurlTransfer) -> Result
    ) -> Result {
        Unmanaged<CurlTransfer>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
    }

    /// libcurl's write callback (`CURLOPT_WRITEFUNCTION`): body bytes, to ``receiveBody(_:)``,
    /// and where the transfer screens its heads, head lines first (see ``screenHeadLine(_:)``).
    static let bodyCallback: ccurl_data_callback = { buffer, size, count, context in
        withTransfer(context) {
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
            return _slowPath($0.headScreen.isOpen) ? $0.screenHeadLine(bytes) : $0.receiveBody(bytes)
        }
    }

    /// libcurl's header callback (`CURLOPT_HEADERFUNCTION`): one header line, to
    /// ``receiveHeaderLine(_:)``.
    static let headerCallback: ccurl_data_callback = { buffer, size, count, context in
        let length = size * count
        return withTransfer(context) { $0.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) }
            ? length : 0
    }

    /// libcurl's progress callback (`CURLOPT_XFERINFOFUNCTION`), for requests with a progress
    /// handler: to ``reportProgress(downloadTotal:downloaded:uploadTotal:uploaded:)``.
    static let progressCallback: ccurl_progress_callback = {
        context, downloadTotal, downloaded, uploadTotal, uploaded in
        withTransfer(context) {
            $0.reportProgress(
                downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal),
                uploaded: Int64(uploaded))
        }
        return 0
    }

    /// A piece of a head line, which libcurl hands the write callback before it stores the
    /// line (see ``HeadScreen``): taken, for the header callback to read after, or refused,
    /// which stops the transfer before libcurl stores it.
    @inline(never)
    func screenHeadLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let problem = headScreen.take(bytes) else { return bytes.count }
        state.refuseHead(problem)
        return 0
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let taken = decoder == nil ? deposit(bytes) : decodeBody(bytes)
        if taken == bytes.count, uploadingHandle != nil, state.bodyTaken(taken, isBodySent: { isBodySent }) {
            return 0  // answered whole before the request body went out: stop, as a success
        }
        return taken
    }

    /// Whether libcurl sent the whole request body (or, for a body of unknown length, read its
    /// end).
    var isBodySent: Bool {
        guard let uploadingHandle else { return true }
        guard let size = request.body?.count else { return bodyReader?.streamEnded ?? true }
        return uploadingHandle.infoOffset(CURLINFO_SIZE_UPLOAD_T) >= size
    }

    /// Decodes a chunked or compressed body into ``deposit(_:)``, through ``PausableDecoding``,
    /// which keeps what a full stream did not take while libcurl is paused.
    func decodeBody(_ input: UnsafeRawBufferPointer) -> Int {
        guard let decoder else { return 0 }
        do {
            let outcome = try decoding.decode(input, with: decoder) { piece in
                let accepted = deposit(piece)
                if accepted == piece.count { return .all }
                return accepted == ccurl_writefunc_pause ? .full : .refused
            }
            switch outcome {
            case .consumed: return input.count
            case .paused: return ccurl_writefunc_pause
            case .stopped: return 0
            }
        } catch {
            state.decodingFailed(error)
            return 0
        }
    }

    /// Hands body bytes to where the response goes: a stream, a file or memory. Returns
    /// `bytes.count`, `ccurl_writefunc_pause` (a full stream), or less to stop the transfer.
    func deposit(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let received = received.map(Unmanaged.passUnretained) else { return 0 }
        if _slowPath(sink != nil || options?.streamBuffer != nil) {
            return depositElsewhere(bytes, received.takeUnretainedValue())
        }
        // Not retained, as for the header lines (see `withReceiving(_:)`): this runs for every body chunk.
        return received._withUnsafeGuaranteedRef { keepInMemory(bytes, $0) }
    }

    /// Appends body bytes to the response in memory, up to the largest body allowed.
    @inline(__always)
    func keepInMemory(_ bytes: UnsafeRawBufferPointer, _ received: ResponseBuffers) -> Int {
        if received.body.count + bytes.count > settings.maximumBodySize {
            state.bodyWentPastLimit()
            return 0
        }
        if _slowPath(received.body.count + bytes.count > received.body.capacity || received.announcedLength != nil) {
            received.makeBodyRoom(for: bytes.count)
        }
        return received.body.append(bytes) ? bytes.count : 0
    }

    /// ``deposit(_:)`` for a transfer with a stream or a file: a 2xx body goes there, any other
    /// into memory, for the error handler.
    @inline(never)
    func depositElsewhere(_ bytes: UnsafeRawBufferPointer, _ received: ResponseBuffers) -> Int {
        let statusCode = state.statusCode
        if let stream = options?.streamBuffer, (200..<300).contains(statusCode) {
            let accepted = stream.offer(
                bytes,
                head: Response(
                    statusCode: statusCode, rawHeaders: received.headers.copy(), url: request.url,
                    httpVersion: state.head.httpVersion,
                    reasonPhrase: received.reasonPhrase))
            // A full buffer pauses the transfer: libcurl keeps these bytes and stops reading
            // the socket until the consumer asks for more.
            return accepted ? bytes.count : ccurl_writefunc_pause
        }
        if let sink, (200..<300).contains(statusCode) {
            // Only a success goes to the file: an error page stays in memory for the error handler.
            if !sink.isOpen, !sink.open(status: statusCode, headers: received.headers.copy()) { return 0 }
            return sink.write(bytes) ? bytes.count : 0
        }
        return keepInMemory(bytes, received)
    }

    /// Runs `body` with `received`, for the header callback, which runs only after checking the
    /// transfer has it (as ``deposit(_:)`` does). Not retained: the transfer holds it until it
    /// ends, after its last callback; a local or a getter would retain and release it for every
    /// header line.
    @inline(__always)
    func withReceiving<Result>(_ body: (ResponseBuffers) -> Result) -> Result {
        Unmanaged.passUnretained(received.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// One header line from libcurl, checked by the head parser and kept as bytes (see
    /// ``ReceivedHeaderLines``); `false` stops the transfer (a refused head, or memory ran out).
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard received != nil, let line = state.headerLine(bytes) else { return false }
        switch line {
        case .status:
            // A new head: an interim 1xx or a proxy's answer to CONNECT came before; start over.
            if _slowPath(state.responseIsHTTP2), !headCameFromHTTP2Frames() {
                state.refuseHead(.http2StatusOnHTTP1Connection)
                return false
            }
            let reasonPhrase = ResponseHeadParser.unusualReasonPhrase(
                ofStatusLine: bytes, statusCode: state.statusCode)
            withReceiving {
                $0.headers.removeAll()
                $0.reasonPhrase = reasonPhrase
            }
            decoder = nil
        case .end:
            if state.head.isComplete, !prepareForBody() { return false }
            // A body-less answer (204, `Content-Length: 0`) can be complete here.
            if uploadingHandle != nil, state.bodyTaken(0, isBodySent: { isBodySent }) { return false }
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
    func prepareForBody() -> Bool {
        if _slowPath(state.head.isChunked || !state.head.contentCodings.isEmpty) { return makeDecoder() }
        guard let length = state.head.contentLength, sink == nil, options?.streamBuffer == nil else { return true }
        guard state.announcedBodyFits(length: length, maximum: settings.maximumBodySize) else { return false }
        let capacity = min(length, settings.maximumBodySize)
        withReceiving { $0.reserveBody(capacity) }
        return true
    }

    /// The decoder for the body the head announced: chunked (libcurl hands it over as it came,
    /// see ``ChunkedDecoder``), compressed, or both. A coding Connect does not decode leaves
    /// the content as it came. Out of line: most responses are neither.
    @inline(never)
    func makeDecoder() -> Bool {
        do {
            decoder = try BodyDecoder(
                chunked: state.head.isChunked,
                codings: state.head.hasUnknownContentCoding ? [] : state.head.contentCodings)
        } catch {
            state.decodingFailed(error)
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
    func headCameFromHTTP2Frames() -> Bool {
        guard let runningHandle else { return true }
        let connections = runningHandle.connections
        let fromFrames: Bool
        switch ccurl_head_has_pseudo_status(runningHandle.raw) {
        case 1: fromFrames = true
        case 0: fromFrames = false
        default: fromFrames = connection.h2c != nil || Self.isHTTPS(request.url.absoluteString)
        }
        if fromFrames {
            if let socket = connection.socket {
                connections.provedMultiplexing(socket) { connectionOrigin() }
            }
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

    /// libcurl's progress callback: a report, as ``ProgressReports`` allows.
    func reportProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) {
        guard
            let report = progress.ticked(
                downloadTotal: downloadTotal, downloaded: downloaded, uploadTotal: uploadTotal, uploaded: uploaded,
                offset: resume?.progressOffset(statusCode: state.statusCode) ?? 0, bodySize: request.body?.count,
                now: DispatchTime.now().uptimeNanoseconds),
            let handler = options?.progress, let progressQueue
        else { return }
        progressQueue.async { handler.report(report) }
    }

    /// The figures when the transfer ended, for the last progress report.
    func updateFinalProgress(_ handle: CurlEasyHandle) {
        guard options?.progress != nil else { return }
        _ = progress.ended(
            length: Int64(handle.infoOffset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)),
            received: Int64(handle.infoOffset(CURLINFO_SIZE_DOWNLOAD_T)),
            sent: Int64(handle.infoOffset(CURLINFO_SIZE_UPLOAD_T)),
            offset: resume?.progressOffset(statusCode: state.statusCode) ?? 0)
    }
}
