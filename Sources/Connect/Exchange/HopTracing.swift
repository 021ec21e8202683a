#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tracing

/// Traces the requests of one exchange: a client span for every request that goes on the wire
/// (each attempt, each redirect hop), as OpenTelemetry's HTTP client conventions describe, with
/// the trace context injected into the request's headers.
///
/// A stage of the ``HopChain`` only when a tracer is set or bootstrapped (see
/// ``ConnectConfiguration/tracer``): without one, an exchange pays one `nil` check.
final class HopTracing: Sendable {
    let tracer: any Tracer

    init(tracer: any Tracer) {
        self.tracer = tracer
    }

    /// Starts the span of `request`, a child of `parent` (the caller's context when the exchange
    /// started), sent again for the `resendCount`-th time (a retry or a redirect hop), and
    /// injects its context into the request's headers.
    func start(_ request: inout Request, parent: ServiceContext, resendCount: Int) -> any Span {
        let method = request.method.rawValue
        let isKnown = Self.knownMethods.contains(method)
        let span = tracer.startSpan(isKnown ? method : "HTTP", context: parent, ofKind: .client)
        span.updateAttributes { attributes in
            for (key, value) in Self.requestAttributes(of: request, resendCount: resendCount) {
                attributes[key] = value
            }
        }
        var headers = request.headers
        tracer.inject(span.context, into: &headers, using: HeaderInjector())
        request.headers = headers
        return span
    }

    /// Ends `span` with what the request brought back.
    static func end(_ span: any Span, with result: Result<Response, any Error>) {
        switch result {
        case .success(let response):
            span.updateAttributes { attributes in
                attributes["http.response.status_code"] = response.statusCode
                attributes["network.protocol.version"] = response.httpVersion
                if let cacheStatus = response.cacheStatus { attributes["connect.cache.status"] = cacheStatus.rawValue }
                if response.statusCode >= 400 { attributes["error.type"] = String(response.statusCode) }
            }
            // A client span fails on 4xx and 5xx alike: the request did not do what it asked.
            if response.statusCode >= 400 { span.setStatus(SpanStatus(code: .error)) }
        case .failure(let error):
            span.attributes["error.type"] = errorType(of: error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: "\(error)"))
        }
        span.end()
    }

    /// The methods OpenTelemetry names spans after; others are traced as `HTTP` with
    /// `http.request.method` set to `_OTHER`.
    static let knownMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"
    ]

    /// The attributes known before the request is sent.
    static func requestAttributes(of request: Request, resendCount: Int) -> [(String, SpanAttribute)] {
        let method = request.method.rawValue
        var attributes: [(String, SpanAttribute)] = []
        if knownMethods.contains(method) {
            attributes.append(("http.request.method", .string(method)))
        } else {
            attributes.append(("http.request.method", .string("_OTHER")))
            attributes.append(("http.request.method_original", .string(method)))
        }
        attributes.append(("url.full", .string(redactedURL(request.url))))
        if let host = request.url.host() { attributes.append(("server.address", .string(host))) }
        attributes.append(("server.port", .int64(Int64(request.url.port ?? RedirectFollower.defaultPort(request.url)))))
        if resendCount > 0 { attributes.append(("http.request.resend_count", .int64(Int64(resendCount)))) }
        return attributes
    }

    /// The query parameters whose values OpenTelemetry asks to redact: request signatures.
    static let secretQueryNames: Set<String> = ["awsaccesskeyid", "signature", "sig", "x-goog-signature"]

    /// `url` without credentials or signatures: a user and password become `REDACTED`, as do
    /// the values of signature query parameters; the fragment is left out.
    static func redactedURL(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        if components.percentEncodedUser != nil { components.percentEncodedUser = "REDACTED" }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "REDACTED" }
        components.fragment = nil
        if let items = components.percentEncodedQueryItems,
            items.contains(where: { secretQueryNames.contains($0.name.lowercased()) })
        {
            components.percentEncodedQueryItems = items.map { item in
                secretQueryNames.contains(item.name.lowercased())
                    ? URLQueryItem(name: item.name, value: "REDACTED") : item
            }
        }
        return components.string ?? url.absoluteString
    }

    /// A low-cardinality name for what failed, for `error.type`.
    static func errorType(of error: any Error) -> String {
        guard let error = error as? ConnectError else { return String(reflecting: type(of: error)) }
        switch error {
        case .invalidRequest: return "invalidRequest"
        case .transport(let failure): return failure.kind.name
        case .timedOut: return "timeout"
        case .cancelled: return "cancelled"
        case .tls: return "tls"
        case .http(let failure): return String(failure.statusCode)
        case .responseTooLarge: return "responseTooLarge"
        case .decoding: return "decoding"
        }
    }
}

/// Writes trace context (e.g. `traceparent`) into a request's headers, replacing any of the same name.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout [HTTPHeader]) {
        headers.removeAll { $0.hasName(key) }
        headers.append(HTTPHeader(name: key, value: value))
    }
}
