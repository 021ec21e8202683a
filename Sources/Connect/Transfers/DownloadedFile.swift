#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A downloaded file and the response that brought it.
public struct DownloadedFile: Sendable {
    /// Where the body was written.
    public let location: URL
    /// The response; its `body` is empty, the bytes are in the file.
    public let response: Response
    /// Whether the download continued a partial file (the server answered 206).
    public let resumed: Bool
}
