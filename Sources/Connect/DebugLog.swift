import Foundation
import Logging

/// What `debugResponse: true` prints: the request as a runnable `curl` command, then the
/// response or error. Secrets are redacted unless the configuration says otherwise.
struct DebugLog: Sendable {
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]

    let logger: Logger
    let showsSecrets: Bool
    let started = ContinuousClock.now

    init(configuration: ConnectConfiguration) {
        logger = configuration.logger
        showsSecrets = configuration.logsSecrets
    }

    func request(_ request: Request) {
        logger.info("\(Self.curlCommand(for: request, showingSecrets: showsSecrets))")
    }

    func outcome(_ result: Result<Response, any Error>, of request: Request) {
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success(let response):
            logger.info("\(Self.describe(response, elapsed: elapsed, showingSecrets: showsSecrets))")
        case .failure(let error):
            logger.info("\(request.method) \(request.url.absoluteString) failed after \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow))): \(error)")
        }
    }

    static func curlCommand(for request: Request, showingSecrets: Bool) -> String {
        var lines = ["$ curl -v", "-X \(request.method.rawValue)"]
        for header in request.headers {
            let value = showingSecrets || !secretHeaders.contains(header.name.lowercased()) ? header.value : "<redacted>"
            lines.append("-H \(shellQuoted("\(header.name): \(value)"))")
        }
        if let body = request.body?.data, !body.isEmpty {
            let text = String(data: body, encoding: .utf8) ?? "<\(body.count) bytes of binary data>"
            lines.append("-d \(shellQuoted(text))")
        }
        lines.append(shellQuoted(request.url.absoluteString))
        return lines.joined(separator: " \\\n    ")
    }

    static func describe(_ response: Response, elapsed: Duration, showingSecrets: Bool) -> String {
        var lines = ["HTTP/\(response.httpVersion) \(response.statusCode) \(response.reasonPhrase) in \(String(format: "%.1f", elapsed.milliseconds)) ms, \(response.body.count) bytes"]
        for header in response.headers {
            let value = showingSecrets || !secretHeaders.contains(header.name.lowercased()) ? header.value : "<redacted>"
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
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
