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
