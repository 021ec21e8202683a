#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file to upload as one part of a `multipart/form-data` request.
///
/// ```swift
/// let photo = File(name: "photo.jpg", key: "avatar", mimeType: .jpg, data: jpegData)
/// let video = File(name: "clip.mp4", key: "video", mimeType: .mp4, fileURL: recordingURL)
/// connect.upload(files: [photo, video], to: ProfileConnector.update)
/// ```
/// A file on disk is streamed from disk during the transfer and never loaded whole.
public struct File: Sendable {
    enum Source: Sendable {
        case data(Data)
        case disk(URL)
    }

    /// The file name sent to the server.
    public let name: String
    /// The form field the file is sent under.
    public let key: String
    /// Its media type.
    public let mimeType: MimeType
    let source: Source

    /// A file whose bytes are in memory.
    public init(name: String, key: String, mimeType: MimeType, data: Data) {
        self.name = name
        self.key = key
        self.mimeType = mimeType
        source = .data(data)
    }

    /// A file on disk, streamed from disk while it is sent.
    public init(name: String, key: String, mimeType: MimeType, fileURL: URL) {
        self.name = name
        self.key = key
        self.mimeType = mimeType
        source = .disk(fileURL)
    }

    /// The bytes in memory, if the file was made from `Data`.
    public var data: Data? {
        if case .data(let data) = source { return data }
        return nil
    }

    /// The file on disk, if the file was made from a URL.
    public var fileURL: URL? {
        if case .disk(let url) = source { return url }
        return nil
    }
}
