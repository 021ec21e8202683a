#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One part of a `multipart/form-data` body.
public struct FormPart: Sendable {
    enum Value: Sendable {
        case text(String)
        case typed(Data, MimeType)
        case file(File)
    }

    /// The form field name.
    public let name: String
    let value: Value

    /// A text field.
    public static func field(_ name: String, _ value: String) -> FormPart {
        FormPart(name: name, value: .text(value))
    }

    /// A field with bytes of a given type (no file name), e.g. a JSON document.
    public static func field(_ name: String, data: Data, mimeType: MimeType) -> FormPart {
        FormPart(name: name, value: .typed(data, mimeType))
    }

    /// A file, sent under its ``File/key``.
    public static func file(_ file: File) -> FormPart {
        FormPart(name: file.key, value: .file(file))
    }

    /// Why this part cannot be sent, or `nil`. Names travel in C strings (a NUL would cut them
    /// short) and in headers (libcurl escapes quotes, CR and LF itself).
    var validationProblem: String? {
        if name.utf8.contains(0) { return "the form field name \(name.debugDescription) contains NUL" }
        switch value {
        case .text(let text):
            if text.utf8.contains(0) { return "the value of form field \(name.debugDescription) contains NUL" }
        case .typed(_, let mimeType):
            if mimeType.rawValue.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                return "the media type of form field \(name.debugDescription) contains CR, LF or NUL"
            }
        case .file(let file):
            if file.name.utf8.contains(0) { return "the file name \(file.name.debugDescription) contains NUL" }
            if file.mimeType.rawValue.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                return "the media type of \(file.name.debugDescription) contains CR, LF or NUL"
            }
            if case .disk(let url) = file.source, !FileManager.default.isReadableFile(atPath: url.path) {
                return "the file \(url.path.debugDescription) cannot be read"
            }
        }
        return nil
    }
}
