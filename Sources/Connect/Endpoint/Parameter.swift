#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One parameter of a request.
///
/// ```swift
/// var parameters: (any ParametersRepresentable)? { Parameter.path(key: "id", value: "\(id)") }
/// ```
/// Several at once: ``CompositeParameters``.
public enum Parameter: ParametersRepresentable {
    /// `key=value` appended to the URL's query, percent-encoded per RFC 3986.
    case query(key: String, value: String)
    /// Fills `{key}` in the endpoint with `value`, percent-encoded as one path segment: a `/`,
    /// `?`, `#`, `%`, space or `..` in `value` cannot change the route.
    case path(key: String, value: String)
    /// `value` encoded as JSON and sent as the body, with `Content-Type: application/json`.
    case jsonObject(value: any Encodable)

    public func encode(into parameters: inout EncodedParameters) throws {
        switch self {
        case .query(let key, let value):
            parameters.appendQuery(name: key, value: value)
        case .path(let key, let value):
            try parameters.setPathValue(value, for: key)
        case .jsonObject(let value):
            let data: Data
            do {
                data = try JSONBodyWriter.encode(value, with: parameters.jsonEncoder)
            } catch {
                throw ConnectError.invalidRequest("the JSON body could not be encoded: \(error)")
            }
            try parameters.setBody(.data(data, contentType: "application/json"))
        }
    }
}
