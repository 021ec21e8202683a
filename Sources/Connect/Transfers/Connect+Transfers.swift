import ConnectFutures
import Foundation

extension Connect {
    /// Uploads `files` as `multipart/form-data` to the endpoint `connector` describes, as in
    /// SwiftConnect; the future gives the response body.
    ///
    /// ```swift
    /// connect.upload(files: [File(name: "me.jpg", key: "avatar", mimeType: .jpg, data: jpeg)], to: ProfileConnector.avatar)
    /// ```
    /// The connector's path parameters fill its endpoint; its query parameters become form fields
    /// and a JSON object a part named `json`. Files on disk are streamed, never loaded whole.
    public func upload(files: [File]?, to connector: any Connector, progress: ProgressHandler? = nil, debugResponse: Bool = false) -> Future<Data> {
        send(debugResponse: debugResponse, policy: policy(for: connector), progress: progress) {
            var request = try builder.builder.buildUpload(connector, files: files ?? [])
            request.progress = progress
            return request
        }.map { $0.body }
    }

    /// Sends the file at `fileURL` as the whole body (e.g. a PUT to object storage), streamed
    /// from disk; the connector's own parameters apply as usual (a JSON object among them is an
    /// error: the request has one body).
    public func upload(
        fileAt fileURL: URL,
        contentType: String = "application/octet-stream",
        to connector: any Connector,
        progress: ProgressHandler? = nil,
        debugResponse: Bool = false
    ) -> Future<Data> {
        send(debugResponse: debugResponse, policy: policy(for: connector), progress: progress) {
            var request = try builder.builder.build(connector)
            guard request.body == nil else {
                throw ConnectError.invalidRequest("the connector already has a body; a file upload replaces it")
            }
            request.body = try RequestBody.file(fileURL, contentType: contentType)
            request.setHeader(.contentType(contentType))
            request.progress = progress
            return request
        }.map { $0.body }
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
    ///   - resuming: continue a partial file at `destination` with a Range request, and keep the
    ///     partial file if this download fails or is cancelled. If the server ignores the Range
    ///     (answers 200, not 206), the file is started over.
    ///   - progress: receives progress on the callback queue.
    ///   - debugResponse: logs the request as a `curl` command and the response, secrets redacted.
    public func download(
        _ connector: any Connector,
        to destination: URL? = nil,
        resuming: Bool = false,
        progress: ProgressHandler? = nil,
        debugResponse: Bool = false
    ) -> Future<DownloadedFile> {
        let location = destination ?? FileManager.default.temporaryDirectory.appendingPathComponent("connect-download-\(UUID().uuidString)")
        return send(debugResponse: debugResponse, policy: policy(for: connector), progress: progress) {
            var request = try builder.builder.build(connector)
            request.destination = .file(location, resuming: resuming)
            request.progress = progress
            return request
        }.map { response in
            DownloadedFile(location: response.fileURL ?? location, response: response, resumed: response.resumed)
        }
    }

    /// The response to `connector`, its body read as it arrives; see ``ResponseStream``.
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - bufferSize: how many bytes may wait unread before the transfer pauses (1 MiB by default).
    ///   - debugResponse: logs the request as a `curl` command and the response, secrets redacted.
    public func stream(_ connector: any Connector, bufferSize: Int = 1 << 20, debugResponse: Bool = false) -> ResponseStream {
        let buffer = StreamBuffer(limit: bufferSize, context: context)
        let exchange = send(debugResponse: debugResponse, policy: policy(for: connector), progress: nil) {
            var request = try builder.builder.build(connector)
            request.streamBuffer = buffer
            return request
        }
        exchange.observe { buffer.finish($0) }
        return ResponseStream(buffer: buffer, exchange: exchange)
    }

    /// Builds a request (failing the future, on the callback queue, if it cannot be built) and
    /// sends it; a progress stream ends when the request does, retries included.
    private func send(debugResponse: Bool, policy: ExchangePolicy, progress: ProgressHandler?, _ build: () throws -> Request) -> Future<Response> {
        let sent: Future<Response>
        do {
            sent = send(try build(), policy: policy, debugResponse: debugResponse, alreadyValidated: true)
        } catch {
            sent = failLater(error)
        }
        guard let progress else { return sent }
        return sent.always { _ in progress.finish() }
    }
}
