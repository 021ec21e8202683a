import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// What `debugResponse: true` prints: the request as a runnable `curl` command, then the
/// response or error. The values of sensitive headers and a password in the URL are redacted
/// unless the configuration says otherwise.
///
/// A class: an exchange holds it for the whole request and hands it to every step, which
/// retains one reference instead of copying the logger.
final class DebugLog: Sendable {
    let logger: Logger
    /// What to redact; `nil` shows everything.
    let secrets: SensitiveHeaders?
    let started = ContinuousClock.now

    init(configuration: ConnectConfiguration) {
        logger = configuration.logger
        secrets = configuration.logsSecrets ? nil : configuration.sensitiveHeaders
    }

    func request(_ request: Request) {
        logger.info("\(Self.curlCommand(for: request, redacting: secrets))")
    }

    func outcome(_ result: Result<Response, any Error>, of request: Request) {
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success(let response):
            logger.info("\(Self.describe(response, elapsed: elapsed, redacting: secrets))")
        case .failure(let error):
            logger.info(
                "\(request.method) \(Self.text(of: request.url, redacting: secrets)) failed after \(elapsed.secondsAndMilliseconds): \(error)"
            )
        }
    }

    static func curlCommand(for request: Request, redacting secrets: SensitiveHeaders?) -> String {
        var lines = ["$ curl -v", "-X \(request.method.rawValue)"]
        for header in request.headers {
            let value = secrets?.contains(header.name) == true ? "<redacted>" : header.value
            lines.append("-H \(shellQuoted("\(header.name): \(value)"))")
        }
        if let credentials = request.credentials {
            let password = secrets == nil ? credentials.password : "<redacted>"
            let schemes =
                switch credentials.schemes {
                case .basic: "--basic"
                case .digest: "--digest"
                case .ntlm: "--ntlm"
                case .negotiate: "--negotiate"
                default: "--anyauth"
                }
            lines.append("\(schemes) -u \(shellQuoted("\(credentials.username):\(password)"))")
        }
        if let body = request.body?.data, !body.isEmpty {
            let text = String(data: body, encoding: .utf8) ?? "<\(body.count) bytes of binary data>"
            lines.append("-d \(shellQuoted(text))")
        }
        var url = text(of: request.url, redacting: secrets)
        if let unixSocketURL = UnixSocketURL(url) {
            lines.append("--unix-socket \(shellQuoted(unixSocketURL.socketPath))")
            url = unixSocketURL.transferURL
        } else if let socketPath = request.unixSocketPath {
            lines.append("--unix-socket \(shellQuoted(socketPath))")
        }
        for entry in request.connectTo { lines.append("--connect-to \(shellQuoted(entry.curlEntry))") }
        lines.append(shellQuoted(url))
        return lines.joined(separator: " \\\n    ")
    }

    /// The URL as text, its password (`user:password@host`) replaced unless secrets are shown.
    static func text(of url: URL, redacting secrets: SensitiveHeaders?) -> String {
        guard secrets != nil, url.password(percentEncoded: true) != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return url.absoluteString }
        components.percentEncodedPassword = "REDACTED"
        return components.string ?? url.absoluteString
    }

    static func describe(_ response: Response, elapsed: Duration, redacting secrets: SensitiveHeaders?) -> String {
        let source = response.cacheStatus.map { " (cache: \($0))" } ?? ""
        var lines = [
            "HTTP/\(response.httpVersion) \(response.statusCode) \(response.reasonPhrase) in \(elapsed.millisecondsToOneDecimal) ms, \(response.body.count) bytes\(source)"
        ]
        for header in response.headers {
            let value = secrets?.contains(header.name) == true ? "<redacted>" : header.value
            lines.append("\(header.name): \(value)")
        }
        if !response.body.isEmpty {
            let preview = response.body.prefix(1024)
            let text = String(data: preview, encoding: .utf8) ?? "<binary data>"
            lines.append("")
            lines.append(text + (response.body.count > preview.count ? "…" : ""))
        }
        return lines.joined(separator: "\n")
    }

    /// Wraps `text` in single quotes for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }
}
