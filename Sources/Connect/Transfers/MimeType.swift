/// A media type for uploaded files; extend it with your own:
///
/// ```swift
/// extension MimeType {
///     static let myAwesomeType = MimeType(rawValue: "awesome/type")
/// }
/// ```
public struct MimeType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The media type, e.g. `image/png`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    /// `image/jpeg`.
    public static let jpg = MimeType(rawValue: "image/jpeg")
    /// `image/png`.
    public static let png = MimeType(rawValue: "image/png")
    /// `image/gif`.
    public static let gif = MimeType(rawValue: "image/gif")
    /// `image/webp`.
    public static let webp = MimeType(rawValue: "image/webp")
    /// `image/heic`.
    public static let heic = MimeType(rawValue: "image/heic")
    /// `video/mp4`.
    public static let mp4 = MimeType(rawValue: "video/mp4")
    /// `video/quicktime`.
    public static let mov = MimeType(rawValue: "video/quicktime")
    /// `audio/mpeg`.
    public static let mp3 = MimeType(rawValue: "audio/mpeg")
    /// `application/pdf`.
    public static let pdf = MimeType(rawValue: "application/pdf")
    /// `application/json`.
    public static let json = MimeType(rawValue: "application/json")
    /// `application/zip`.
    public static let zip = MimeType(rawValue: "application/zip")
    /// `text/csv`.
    public static let csv = MimeType(rawValue: "text/csv")
    /// `text/plain`.
    public static let plainText = MimeType(rawValue: "text/plain")
    /// `text/html`.
    public static let html = MimeType(rawValue: "text/html")
    /// `application/octet-stream`.
    public static let octetStream = MimeType(rawValue: "application/octet-stream")
}
