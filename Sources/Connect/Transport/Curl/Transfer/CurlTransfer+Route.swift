import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a transfer connects and as whom: a Unix domain socket or connect-to entries of the
/// request's own, the configuration's connection settings, the environment's proxy, and the
/// credentials that answer a server's challenge.
extension CurlTransfer {
    /// `url`, an `http+unix` or `https+unix` URL's text, read; fails naming the problem.
    @inline(never)
    static func unixSocketURL(_ url: String) throws(ConnectError) -> UnixSocketURL {
        guard let parsed = UnixSocketURL(url) else {
            throw .invalidRequest(UnixSocketURL.problem(with: url) ?? "the URL \(url.debugDescription) names no socket")
        }
        return parsed
    }

    /// For ``configure(_:again:)``, a request that names where it connects: the socket of its
    /// `http+unix` URL (`socketPath`) or its own ``Request/unixSocketPath``, and its
    /// ``Request/connectTo`` entries before the configuration's. Set after the common options,
    /// which set the configuration's.
    @inline(never)
    func configureOwnRoute(_ handle: CurlEasyHandle, socketPath: String?) throws(ConnectError) {
        if let socketPath = socketPath ?? request.unixSocketPath {
            if let problem = ConnectionSettings.socketPathProblem(socketPath, named: "the request's unixSocketPath") {
                throw .invalidRequest(problem)
            }
            guard Self.isUnixSocket(socketPath) else {
                throw .invalidRequest(
                    socketPath == request.unixSocketPath
                        ? "the request's unixSocketPath \(socketPath): no socket there"
                        : "the URL \(request.url.absoluteString.debugDescription) names the socket \(socketPath): no socket there"
                )
            }
            ownUnixSocketPath = socketPath
            handle.set(CURLOPT_UNIX_SOCKET_PATH, socketPath)
        }
        if !request.connectTo.isEmpty {
            for (index, entry) in request.connectTo.enumerated() {
                if let problem = entry.problem(named: "the request's connectTo[\(index)]") {
                    throw .invalidRequest(problem)
                }
            }
            handle.setConnectTo((request.connectTo + settings.connections.connectTo).map(\.curlEntry))
        }
    }

    /// The options of ``ConnectionSettings``, each set only when it differs from libcurl's default
    /// (which a reset handle has).
    func configureConnections(_ handle: CurlEasyHandle, _ connections: ConnectionSettings) {
        switch connections.ipVersion {
        case .any: break
        case .v4: handle.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4))
        case .v6: handle.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6))
        }
        if let interface = connections.localInterface { handle.set(CURLOPT_INTERFACE, interface) }
        if let socketPath = connections.unixSocketPath { handle.set(CURLOPT_UNIX_SOCKET_PATH, socketPath) }
        let defaults = ConnectionSettings()
        if connections.dnsCacheLifetime != defaults.dnsCacheLifetime {
            handle.set(CURLOPT_DNS_CACHE_TIMEOUT, ConnectionSettings.seconds(connections.dnsCacheLifetime))
        }
        if connections.maximumIdleTime != defaults.maximumIdleTime {
            handle.set(CURLOPT_MAXAGE_CONN, ConnectionSettings.seconds(connections.maximumIdleTime))
        }
        if let lifetime = connections.maximumLifetime {
            handle.set(CURLOPT_MAXLIFETIME_CONN, ConnectionSettings.seconds(lifetime))
        }
        if !connections.connectTo.isEmpty { handle.setConnectTo(connections.connectTo.map(\.curlEntry)) }
        if let rate = connections.maximumReceiveRate {
            handle.set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: curl_off_t(rate))
        }
        if let rate = connections.maximumSendRate {
            handle.set(CURLOPT_MAX_SEND_SPEED_LARGE, offset: curl_off_t(rate))
        }
    }

    /// The proxy of the environment's that a request to `url` goes through, by its scheme, and
    /// the hosts reached directly; fails naming the variable if its proxy cannot be used.
    @inline(never)
    func configureProxy(_ handle: CurlEasyHandle, from proxies: EnvironmentProxies, url: String) throws(ConnectError) {
        let isHTTPS = Self.isHTTPS(url)
        if let problem = proxies.problem(forHTTPS: isHTTPS) { throw .invalidRequest(problem) }
        handle.set(CURLOPT_PROXY, proxies.variable(forHTTPS: isHTTPS)?.value ?? "")
        handle.set(CURLOPT_NOPROXY, proxies.bypassList)
    }

    /// The request's credentials, for the schemes they allow (`CURLOPT_HTTPAUTH`).
    @inline(never)
    static func configure(_ handle: CurlEasyHandle, credentials: Credentials) {
        handle.set(CURLOPT_USERNAME, credentials.username)
        handle.set(CURLOPT_PASSWORD, credentials.password)
        handle.set(CURLOPT_HTTPAUTH, curlAuthentication(credentials.schemes))
    }

    /// `schemes` as libcurl's `CURLAUTH_*` bits (curl.h's values, part of its ABI: BASIC 1,
    /// DIGEST 2, NEGOTIATE 4, NTLM 8).
    static func curlAuthentication(_ schemes: AuthenticationSchemes) -> Int {
        var bits = 0
        if schemes.contains(.basic) { bits |= 1 << 0 }
        if schemes.contains(.digest) { bits |= 1 << 1 }
        if schemes.contains(.negotiate) { bits |= 1 << 2 }
        if schemes.contains(.ntlm) { bits |= 1 << 3 }
        return bits
    }

    /// Whether a Unix domain socket is at `path` (a stat, once a request: the socket may come
    /// and go while the client lives).
    @inline(never)
    static func isUnixSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }
}
