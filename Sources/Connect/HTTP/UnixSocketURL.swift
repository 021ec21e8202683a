internal import ConnectWire

/// A URL that names a Unix domain socket as its host, in async-http-client's forms:
/// `http+unix://` and `https+unix://`, then the socket's path percent-encoded, then the path
/// and query of the request (`http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`).
///
/// libcurl is given `http://localhost` (or `https://localhost`) with the same path and query,
/// and the socket's path as the transfer's `CURLOPT_UNIX_SOCKET_PATH`: the request's `Host`
/// header, and for `https+unix` the name its certificate is verified against, is `localhost`.
struct UnixSocketURL: Equatable {
    /// The socket's path, percent-decoded.
    let socketPath: String
    /// Whether the connection speaks TLS over the socket (`https+unix`).
    let isHTTPS: Bool
    /// The URL libcurl is given: `http://localhost` or `https://localhost`, then the path and
    /// query as they were (at least `/`).
    let transferURL: String

    /// The longest socket path: `sockaddr_un` holds 108 bytes, the terminating NUL included.
    static let longestSocketPath = 107

    /// Whether `url`, a request's URL as text, has an `http+unix` or `https+unix` scheme: the
    /// `+` after `http` or `https` tells, read without allocating for the requests that do not.
    @inline(__always)
    static func hasUnixScheme(_ url: String) -> Bool {
        url.utf8.withContiguousStorageIfAvailable { bytes in
            (bytes.count > 4 && bytes[4] == UInt8(ascii: "+")) || (bytes.count > 5 && bytes[5] == UInt8(ascii: "+"))
        } ?? url.utf8.dropFirst(4).prefix(2).contains(UInt8(ascii: "+"))
    }

    init(socketPath: String, isHTTPS: Bool, transferURL: String) {
        self.socketPath = socketPath
        self.isHTTPS = isHTTPS
        self.transferURL = transferURL
    }

    /// Reads `url`, a URL's text; `nil` when it is not an `http+unix` or `https+unix` URL with a
    /// socket path that can be used (see ``problem(with:)``).
    init?(_ url: String) {
        guard case .success(let parsed) = Self.parse(url) else { return nil }
        self = parsed
    }

    /// Why `url`, whose scheme is `http+unix` or `https+unix`, cannot be requested, or `nil`.
    static func problem(with url: String) -> String? {
        switch parse(url) {
        case .success: return nil
        case .failure(let problem): return problem.text
        }
    }

    /// Why a URL in this form cannot be used.
    struct Problem: Error, Equatable {
        let text: String
    }

    private static func parse(_ url: String) -> Result<UnixSocketURL, Problem> {
        let bytes = Array(url.utf8)
        let isHTTPS: Bool
        if startsWith(bytes, "https+unix://") {
            isHTTPS = true
        } else if startsWith(bytes, "http+unix://") {
            isHTTPS = false
        } else {
            return .failure(Problem(text: "the URL \(url.debugDescription) is not http+unix or https+unix"))
        }
        let hostStart = isHTTPS ? 13 : 12
        var hostEnd = hostStart
        while hostEnd < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[hostEnd])
        {
            hostEnd += 1
        }
        let host = bytes[hostStart..<hostEnd]
        guard !host.contains(UInt8(ascii: "@")) else {
            return .failure(Problem(text: "the URL \(url.debugDescription) has user information; a socket has none"))
        }
        guard let path = PercentEncoding.decoded(host), !path.isEmpty, !path.contains(0) else {
            return .failure(
                Problem(
                    text:
                        "the URL \(url.debugDescription) names no socket: its host must be the socket's path, percent-encoded"
                ))
        }
        guard path.count <= longestSocketPath else {
            return .failure(
                Problem(
                    text:
                        "the URL \(url.debugDescription) names a socket path of \(path.count) bytes; a socket's path holds at most \(longestSocketPath)"
                ))
        }
        var rest = bytes[hostEnd...].prefix { $0 != UInt8(ascii: "#") }
        if rest.first != UInt8(ascii: "/") { rest = [UInt8(ascii: "/")] + rest }
        let transferURL = (isHTTPS ? "https://localhost" : "http://localhost") + String(decoding: rest, as: UTF8.self)
        return .success(
            UnixSocketURL(socketPath: String(decoding: path, as: UTF8.self), isHTTPS: isHTTPS, transferURL: transferURL)
        )
    }

    private static func startsWith(_ bytes: [UInt8], _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where bytes[index] | 0x20 != prefix.utf8Start[index] | 0x20 {
            // `| 0x20` folds letters to lower case; ":", "/" and "+" already have the bit.
            return false
        }
        return true
    }
}
