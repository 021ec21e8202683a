#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a response body goes.
enum ResponseDestination: Sendable, Hashable {
    /// Into ``Response/body``, up to the configured maximum size.
    case memory
    /// Into the file at `url`, written as it arrives. With `resuming`, a partial file there is
    /// continued with a Range request, and a failed or cancelled transfer leaves the partial
    /// file for the next try; without it the file is replaced, and removed on failure.
    case file(URL, resuming: Bool)
}

/// A downloaded file and the response that brought it.
public struct DownloadedFile: Sendable {
    /// Where the body was written.
    public let location: URL
    /// The response; its `body` is empty, the bytes are in the file.
    public let response: Response
    /// Whether the download continued a partial file (the server answered 206).
    public let resumed: Bool
}
