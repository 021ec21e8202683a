#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parameters of one request, collected from a connector's `parameters` before the request
/// is built.
public struct EncodedParameters {
    /// Values for the `{key}` templates of the endpoint, unencoded. (`Dictionary()` rather than
    /// `[:]`: the empty literal goes through `init(dictionaryLiteral:)`, a call on the path of
    /// every request, where this is the shared empty storage.)
    public private(set) var pathValues = [String: String]()
    /// Query items in order; repeated names are kept.
    public private(set) var queryItems: [QueryItem] = []
    /// The request body, if a parameter supplied one.
    public private(set) var body: RequestBody?
    /// Headers added by parameters (e.g. a content type); the connector's own headers win.
    public var headers: [HTTPHeader] = []
    /// The encoder for ``Parameter/jsonObject(value:)``.
    public var jsonEncoder: JSONEncoder

    init(jsonEncoder: JSONEncoder) {
        self.jsonEncoder = jsonEncoder
    }

    /// Sets the value for `{key}`; giving one key twice is an error.
    public mutating func setPathValue(_ value: String, for key: String) throws {
        guard pathValues[key] == nil else {
            throw ConnectError.invalidRequest("the path parameter \"\(key)\" is given twice")
        }
        pathValues[key] = value
    }

    /// Appends a query item; a `nil` value sends the name alone (`?flag`).
    public mutating func appendQuery(name: String, value: String?) {
        queryItems.append(QueryItem(name: name, value: value))
    }

    /// Replaces the query items and body with a form body (an upload turns them into fields).
    mutating func replaceQueryAndBody(with form: RequestBody) {
        queryItems = []
        body = form
    }

    /// Sets the body; a request has at most one.
    public mutating func setBody(_ newBody: RequestBody) throws {
        guard body == nil else {
            throw ConnectError.invalidRequest("more than one parameter supplies a request body")
        }
        body = newBody
    }
}
