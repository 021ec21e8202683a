#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Foundation's common value types, written as `JSONEncoder` writes them with its default
// strategies (a request whose encoder has other strategies is encoded through `Codable`).

extension URL: JSONWritable {
    /// Writes the URL's absolute string.
    public func write(to json: inout JSONWriter) { json.write(absoluteString) }
}

extension UUID: JSONWritable {
    /// Writes the UUID's string, upper-case hexadecimal in five groups.
    public func write(to json: inout JSONWriter) { json.write(uuidString) }
}

extension Date: JSONWritable {
    /// Writes the seconds since the reference date (January 1, 2001, UTC), as `Date`'s own
    /// `Encodable` conformance and `JSONEncoder`'s default strategy do.
    public func write(to json: inout JSONWriter) { json.write(timeIntervalSinceReferenceDate) }
}

extension Data: JSONWritable {
    /// Writes the bytes as a Base64 string, `JSONEncoder`'s default for `Data`.
    public func write(to json: inout JSONWriter) { json.write(base64EncodedString()) }
}

extension Decimal: JSONWritable {
    /// Writes the number in the form `JSONEncoder` writes it; a NaN fails the request, as with
    /// `JSONEncoder`.
    public func write(to json: inout JSONWriter) { json.writeDecimal(self) }
}
