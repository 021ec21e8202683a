import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Connect {
    /// Uploads `files` as `multipart/form-data` to the endpoint `connector` describes, as in
    /// SwiftConnect; the future gives the response body.
    ///
    /// ```swift
    /// connect.upload(files: [File(name: "me.jpg", key: "avatar", mimeType: .jpg, data: jpeg)], to: ProfileConnector.avatar)
    /// ```
    /// The connector's path parameters fill its endpoint; its query parameters become form fields
    /// and a JSON object a part named `json`. Files on disk are streamed, never loaded whole.
    /// `maximumRate`: bytes a second this upload sends at most, in place of
    /// ``ConnectionSettings/maximumSendRate``.
    public func upload(
        files: [File]?, to connector: any Connector, progress: ProgressHandler? = nil, maximumRate: Int? = nil,
        debugResponse: Bool = false
    ) -> Future<Data> {
        let upload: Future<Data>
        do {
            if let problem = TransferOptions.rateProblem(maximumRate) { throw ConnectError.invalidRequest(problem) }
            let request = try builder.buildUpload(connector, files: files ?? [])
            upload = exchange(
                for: connector, debugResponse: debugResponse,
                options: .ifAny(progress: progress, maximumSendRate: maximumRate)
            )
            .run(request) { $0.body }
        } catch {
            upload = failLater(error)
        }
        return ending(progress, with: upload)
    }

    /// Sends the file at `fileURL` as the whole body (e.g. a PUT to object storage), streamed
    /// from disk; the connector's own parameters apply as usual (a JSON object among them is an
    /// error: the request has one body). `maximumRate`: bytes a second this upload sends at most,
    /// in place of ``ConnectionSettings/maximumSendRate``.
    public func upload(
        fileAt fileURL: URL,
        contentType: String = "application/octet-stream",
        to connector: any Connector,
        progress: ProgressHandler? = nil,
        maximumRate: Int? = nil,
        debugResponse: Bool = false
    ) -> Future<Data> {
        let upload = start(
            connector, debugResponse: debugResponse,
            prepare: { request in
                if let problem = TransferOptions.rateProblem(maximumRate) { throw ConnectError.invalidRequest(problem) }
                guard request.body == nil else {
                    throw ConnectError.invalidRequest("the connector already has a body; a file upload replaces it")
                }
                request.body = try RequestBody.file(fileURL, contentType: contentType)
                request.setHeader(.contentType(contentType))
            }, options: .ifAny(progress: progress, maximumSendRate: maximumRate), output: { $0.body })
        return ending(progress, with: upload)
    }

    /// Downloads the body of the response to `connector` straight to a file, as it arrives;
    /// memory does not grow with the file.
    ///
    /// ```swift
    /// let (updates, progress) = TransferProgress.stream()
    /// let download = connect.download(VideoConnector.episode(3), to: videoURL, resuming: true, progress: progress)
    /// ```
    /// A failed or cancelled download that is not resumable leaves no file behind. An error
    /// status never touches the file: its body goes to the error handler as usual.
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - destination: where the file goes (replaced if it exists); a new temporary file when `nil`.
    ///   - resuming: keep the partial file if this download fails or is cancelled, and continue
    ///     a partial file at `destination` that an earlier resumable download left, with a Range
    ///     request whose `If-Range` names the version it has (see <doc:UploadsAndDownloads>): a server
    ///     whose file changed answers with the whole new one, which starts the file over, as does
    ///     a server that ignores the Range.
    ///   - progress: receives progress on the callback queue.
    ///   - maximumRate: bytes a second this download receives at most, in place of
    ///     ``ConnectionSettings/maximumReceiveRate``; libcurl keeps the average to it, so the
    ///     first burst may be faster.
    ///   - debugResponse: logs the request as a `curl` command and the response, secrets redacted.
    public func download(
        _ connector: any Connector,
        to destination: URL? = nil,
        resuming: Bool = false,
        progress: ProgressHandler? = nil,
        maximumRate: Int? = nil,
        debugResponse: Bool = false
    ) -> Future<DownloadedFile> {
        if let problem = TransferOptions.rateProblem(maximumRate) {
            return ending(progress, with: failLater(ConnectError.invalidRequest(problem)))
        }
        let location =
            destination
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("connect-download-\(UUID().uuidString)")
        let options = TransferOptions.ifAny(
            destination: .file(location, resuming: resuming), progress: progress, maximumReceiveRate: maximumRate)
        let download = start(connector, debugResponse: debugResponse, options: options) { response in
            DownloadedFile(location: response.fileURL ?? location, response: response, resumed: response.resumed)
        }
        return ending(progress, with: download)
    }

    /// The response to `connector`, its body read as it arrives; see ``ResponseStream``.
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - bufferSize: how many bytes may wait unread before the transfer pauses (1 MiB by default).
    ///   - debugResponse: logs the request as a `curl` command and the response, secrets redacted.
    public func stream(
        _ connector: any Connector, bufferSize: Int = 1 << 20, debugResponse: Bool = false
    ) -> ResponseStream {
        stream(connector, bufferSize: bufferSize, debugResponse: debugResponse, headers: [])
    }

    /// The response to a request built by hand, its body read as it arrives; see
    /// ``ResponseStream``. It goes through the same middleware, validation and error handler
    /// as ``send(_:debugResponse:)``.
    ///
    /// - Parameters:
    ///   - request: the request; its body may itself be a stream (``RequestBody/stream(_:count:contentType:)``).
    ///   - bufferSize: how many bytes may wait unread before the transfer pauses (1 MiB by default).
    ///   - debugResponse: logs the request as a `curl` command and the response, secrets redacted.
    public func stream(_ request: Request, bufferSize: Int = 1 << 20, debugResponse: Bool = false) -> ResponseStream {
        streaming(bufferSize: bufferSize) { buffer in
            send(request, debugResponse: debugResponse, options: .ifAny(streamBuffer: buffer))
        }
    }

    /// `stream(_:bufferSize:debugResponse:)` with `headers` set on the request (replacing the
    /// connector's of the same name), for the event and line streams.
    func stream(
        _ connector: any Connector, bufferSize: Int, debugResponse: Bool, headers: [HTTPHeader]
    ) -> ResponseStream {
        streaming(bufferSize: bufferSize) { buffer in
            start(
                connector, debugResponse: debugResponse,
                prepare: { request in
                    for header in headers { request.setHeader(header) }
                }, options: .ifAny(streamBuffer: buffer), output: { $0 })
        }
    }

    /// The stream of the exchange `run` starts with the stream's buffer as its request's.
    private func streaming(bufferSize: Int, _ run: (StreamBuffer) -> Future<Response>) -> ResponseStream {
        let buffer = StreamBuffer(limit: bufferSize, context: context)
        let exchange = run(buffer)
        exchange.observe { buffer.finish($0) }
        return ResponseStream(buffer: buffer, exchange: exchange)
    }

    /// `transfer`, after which `progress` (if any) ends: a progress stream ends when the
    /// request does, retries included.
    private func ending<Output: Sendable>(_ progress: ProgressHandler?, with transfer: Future<Output>) -> Future<Output>
    {
        guard let progress else { return transfer }
        return transfer.always { _ in progress.finish() }
    }
}
