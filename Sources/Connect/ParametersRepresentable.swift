import Foundation

/// Anything a ``Connector`` can return as its `parameters`: ``Parameter``,
/// ``CompositeParameters``, or a kind of your own.
///
/// ```swift
/// struct Paging: ParametersRepresentable {
///     var page: Int, size: Int
///     func encode(into parameters: inout EncodedParameters) throws {
///         parameters.appendQuery(name: "page", value: "\(page)")
///         parameters.appendQuery(name: "per_page", value: "\(size)")
///     }
/// }
/// ```
public protocol ParametersRepresentable {
    /// Adds this value's path values, query items, body or headers to `parameters`.
    /// Throwing fails the request before anything is sent.
    func encode(into parameters: inout EncodedParameters) throws
}

/// The parameters of one request, collected from a connector's `parameters` before the request
/// is built.
public struct EncodedParameters {
    /// Values for the `{key}` templates of the endpoint, unencoded.
    public private(set) var pathValues: [String: String] = [:]
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

/// One `name=value` pair of a URL query.
public struct QueryItem: Hashable, Sendable {
    /// The name, unencoded.
    public var name: String
    /// The value, unencoded; `nil` sends the name alone.
    public var value: String?

    /// Creates a query item.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
