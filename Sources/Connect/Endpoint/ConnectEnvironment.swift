#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which server the requests go to, so the same connectors serve production, a development
/// server, or a CDN, without editing each one (ABNetworkKit's environments).
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.environment = .development(URL(string: "http://localhost:8080")!)
/// configuration.environment.hostOverrides["images.example.com"] = URL(string: "https://cdn.example.net/img")!
/// ```
public struct ConnectEnvironment: Sendable, Hashable {
    /// The kind of environment, for your own checks and for logging.
    public enum Kind: String, Sendable, Hashable {
        case production, development, custom
    }

    /// What this environment is.
    public var kind: Kind
    /// Replaces every connector's base URL (scheme, host, port and base path); `nil` keeps each
    /// connector's own.
    public var baseURL: URL?
    /// Replaces the base URL of the connectors whose base URL has the given host, e.g. to send
    /// image requests to a CDN. Applied when ``baseURL`` is `nil`.
    public var hostOverrides: [String: URL]
    /// Log every request and response as `debugResponse: true` does (on for `.development`).
    public var logsEveryRequest: Bool

    /// Creates an environment.
    public init(kind: Kind, baseURL: URL? = nil, hostOverrides: [String: URL] = [:], logsEveryRequest: Bool = false) {
        self.kind = kind
        self.baseURL = baseURL
        self.hostOverrides = hostOverrides
        self.logsEveryRequest = logsEveryRequest
    }

    /// Each connector's own base URL: the default.
    public static let production = ConnectEnvironment(kind: .production)

    /// Every request to `baseURL`, each logged as with `debugResponse: true`.
    public static func development(_ baseURL: URL) -> ConnectEnvironment {
        ConnectEnvironment(kind: .development, baseURL: baseURL, logsEveryRequest: true)
    }

    /// Every request to `baseURL` (ABNetworkKit's custom host).
    public static func custom(_ baseURL: URL) -> ConnectEnvironment {
        ConnectEnvironment(kind: .custom, baseURL: baseURL)
    }

    /// Some connectors' base URLs are replaced here.
    var replacesBaseURLs: Bool { baseURL != nil || !hostOverrides.isEmpty }

    /// The base URL a connector's requests use here.
    public func baseURL(for connectorBaseURL: URL) -> URL {
        if let baseURL { return baseURL }
        // `host` parses the URL: skipped when there is nothing to look up.
        if !hostOverrides.isEmpty, let host = connectorBaseURL.host, let override = hostOverrides[host] {
            return override
        }
        return connectorBaseURL
    }
}
