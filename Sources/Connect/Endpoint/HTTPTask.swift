#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a request carries, in NetworkKit's terms; return one as a connector's `parameters`.
///
/// ```swift
/// var parameters: (any ParametersRepresentable)? {
///     HTTPTask.requestParameters(["q": "swift", "page": "2"], encoding: .queryString)
/// }
/// ```
/// The `Content-Type` is set to match unless the connector sets its own.
public enum HTTPTask: ParametersRepresentable {
    /// No body and no parameters.
    case requestPlain
    /// Raw bytes as the body, with a content type (`application/octet-stream` if `nil`).
    case requestData(Data, contentType: String? = nil)
    /// An `Encodable` as a JSON body; `nil` uses the configuration's `jsonEncoder`.
    case requestJSONEncodable(any Encodable, encoder: JSONEncoder? = nil)
    /// Form parameters, URL-encoded, in the query or as an
    /// `application/x-www-form-urlencoded` body. Sent in key order.
    case requestParameters([String: String], encoding: URLEncoding)

    /// Where ``HTTPTask/requestParameters(_:encoding:)`` puts the parameters.
    public enum URLEncoding: Sendable, Hashable {
        /// In the URL's query.
        case queryString
        /// As an `application/x-www-form-urlencoded` body.
        case httpBody

        /// In the URL's query: NetworkKit's name for ``queryString``.
        public static var url: URLEncoding { .queryString }
    }

    /// NetworkKit's spelling: `.requestParameters(["q": "swift"], .url)` or `.httpBody`.
    public static func requestParameters(_ parameters: [String: String], _ destination: URLEncoding) -> HTTPTask {
        .requestParameters(parameters, encoding: destination)
    }

    public func encode(into parameters: inout EncodedParameters) throws {
        switch self {
        case .requestPlain:
            return
        case .requestData(let data, let contentType):
            try parameters.setBody(.data(data, contentType: contentType ?? "application/octet-stream"))
        case .requestJSONEncodable(let value, let encoder):
            let data: Data
            do {
                data = try (encoder ?? parameters.jsonEncoder).encode(value)
            } catch {
                throw ConnectError.invalidRequest("the JSON body could not be encoded: \(error)")
            }
            try parameters.setBody(.data(data, contentType: "application/json"))
        case .requestParameters(let values, let encoding):
            let sorted = values.sorted { $0.key < $1.key }
            switch encoding {
            case .queryString:
                for (name, value) in sorted { parameters.appendQuery(name: name, value: value) }
            case .httpBody:
                let form = sorted.map { RequestBuilder.encode(QueryItem(name: $0.key, value: $0.value)) }.joined(
                    separator: "&")
                try parameters.setBody(
                    .data(Data(form.utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8"))
            }
        }
    }
}
