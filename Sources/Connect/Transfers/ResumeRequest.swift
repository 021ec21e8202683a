/// What a resumable download asks of the server beyond its request: the bytes from the end of
/// the partial file on disk, and the headers that make such a range safe to append. Made once,
/// when the transfer is set up, from the partial file's record (see ``ResumeRecord``); what the
/// answer means for the file is ``ResumeDecision``.
struct ResumeRequest: Equatable {
    /// Bytes already on disk that the download continues from; 0 without a partial file to
    /// continue, when the whole body is asked for.
    let offset: Int64
    /// `Accept-Encoding: identity` unless the request names an encoding of its own (a range
    /// counts the bytes as sent, and the file holds them decoded), and `If-Range` with the
    /// partial file's validator, so that a changed file comes whole rather than as a part that
    /// does not fit.
    let headers: [HTTPHeader]

    /// `requestNamesEncoding`: the request has an `Accept-Encoding` of its own. `partialFile`:
    /// where the partial file ends and its validator (`ETag` or `Last-Modified`), if there is
    /// one to continue.
    init(requestNamesEncoding: Bool, partialFile: (offset: Int64, validator: String)?) {
        var headers: [HTTPHeader] = []
        if !requestNamesEncoding { headers.append(HTTPHeader(name: "Accept-Encoding", value: "identity")) }
        if let partialFile { headers.append(HTTPHeader(name: "If-Range", value: partialFile.validator)) }
        self.offset = partialFile?.offset ?? 0
        self.headers = headers
        self.range = partialFile.map { "\($0.offset)-" }
    }

    /// The `Range` the request goes with (`"<offset>-"`), or `nil` without a partial file, when
    /// it asks for the whole body. A file as long as its recorded whole asks for its last byte
    /// again (see ``FileSink/partialFileToContinue()``), so an offset of 0 still has a range.
    let range: String?

    /// What progress reports add to the bytes received for an answer of `statusCode`: the bytes
    /// on disk, when the server sent the rest (206); nothing when it sent the whole body.
    func progressOffset(statusCode: Int) -> Int64 { statusCode == 206 ? offset : 0 }
}
