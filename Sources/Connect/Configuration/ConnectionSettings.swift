/// How a client's connections are made and kept: the address family, the local interface they
/// leave from, how long a resolved name and an idle or old connection are kept, and how fast each
/// transfer may go. Each setting is one libcurl option, named beside it.
///
/// ```swift
/// configuration.connections.maximumIdleTime = .seconds(50)     // below the load balancer's 60 s
/// configuration.connections.maximumLifetime = .seconds(300)    // move to new backends now and then
/// configuration.connections.ipVersion = .v4
/// configuration.connections.maximumReceiveRate = 1 << 20       // 1 MiB/s for each transfer
/// ```
///
/// A setting that cannot work (a negative duration, an empty interface name, a rate of zero)
/// fails every request with ``ConnectError/invalidRequest(_:)`` naming it, before anything is sent.
public struct ConnectionSettings: Sendable, Hashable {
    /// Which addresses a host name's connections may use.
    public enum IPVersion: Sendable, Hashable {
        /// IPv4 and IPv6, as the resolver returns them (the default).
        case any
        /// IPv4 only.
        case v4
        /// IPv6 only.
        case v6
    }

    /// The address family connections use (`CURLOPT_IPRESOLVE`): a host that resolves only to
    /// the other family fails with ``TransportFailure/Kind/nameResolution``.
    public var ipVersion: IPVersion = .any
    /// The local interface or address connections leave from (`CURLOPT_INTERFACE`): an interface
    /// name (`"eth0"`), an address (`"192.0.2.7"`), or a host name; `nil`, the default, lets the
    /// system choose. One that cannot be bound fails with ``TransportFailure/Kind/localInterface``.
    public var localInterface: String?
    /// How long a resolved host name is reused (`CURLOPT_DNS_CACHE_TIMEOUT`, whole seconds,
    /// rounded up): 60 seconds, libcurl's default. Zero resolves for every new connection.
    public var dnsCacheLifetime: Duration = .seconds(60)
    /// How long a connection may have been idle and still be reused (`CURLOPT_MAXAGE_CONN`,
    /// whole seconds, rounded up): 118 seconds, libcurl's default. Set it below the idle timeout
    /// of a load balancer or server in front, so that no request goes out on a connection the
    /// other side is closing.
    public var maximumIdleTime: Duration = .seconds(118)
    /// How long after it opened a connection may still be reused (`CURLOPT_MAXLIFETIME_CONN`,
    /// whole seconds, rounded up); `nil`, the default, keeps a connection while it works. Behind
    /// a load balancer, a lifetime moves a busy client to new backends as they come.
    public var maximumLifetime: Duration?
    /// A Unix domain socket every connection goes through instead of TCP
    /// (`CURLOPT_UNIX_SOCKET_PATH`), as the Docker and Podman APIs listen: the URL still names
    /// the host, which goes in the `Host` header (`http://localhost/v1.43/info`), and `https`
    /// URLs speak TLS over the socket. A path where no socket is fails each request with
    /// ``ConnectError/invalidRequest(_:)`` before anything is sent.
    public var unixSocketPath: String?
    /// Where connections for a host and port go instead (`CURLOPT_CONNECT_TO`), with TLS
    /// verification and pins still on the URL's host; see ``ConnectTo``. The first entry that
    /// matches a request's host and port applies.
    public var connectTo: [ConnectTo] = []
    /// The most bytes a second each transfer receives (`CURLOPT_MAX_RECV_SPEED_LARGE`); `nil`,
    /// the default, does not limit. libcurl keeps the transfer's average at the rate by pausing
    /// its reads once it is over, so a fast network can deliver a first burst (what one read
    /// loop drains from the socket) above it; over a long transfer the average holds.
    public var maximumReceiveRate: Int?
    /// The most bytes a second each transfer sends (`CURLOPT_MAX_SEND_SPEED_LARGE`); `nil`, the
    /// default, does not limit.
    public var maximumSendRate: Int?

    /// libcurl's own behaviour: both address families, any interface, its cache and connection ages, no rate limit.
    public init() {}

    /// The first setting that cannot work, named as an app sets it, or `nil`.
    var problem: String? {
        if let localInterface, localInterface.isEmpty || localInterface.contains(where: { $0.isNewline || $0 == "\0" })
        {
            return "configuration.connections.localInterface \(localInterface.debugDescription) names no interface"
        }
        for (name, duration) in [("dnsCacheLifetime", dnsCacheLifetime), ("maximumIdleTime", maximumIdleTime)]
        where duration < .zero {
            return "configuration.connections.\(name) is negative (\(duration))"
        }
        if let maximumLifetime, maximumLifetime <= .zero {
            return
                "configuration.connections.maximumLifetime must be positive (\(maximumLifetime)); nil keeps connections"
        }
        if let unixSocketPath,
            let problem = Self.socketPathProblem(unixSocketPath, named: "configuration.connections.unixSocketPath")
        {
            return problem
        }
        for (index, entry) in connectTo.enumerated() {
            if let problem = entry.problem(named: "configuration.connections.connectTo[\(index)]") { return problem }
        }
        for (name, rate) in [("maximumReceiveRate", maximumReceiveRate), ("maximumSendRate", maximumSendRate)] {
            if let rate, rate <= 0 {
                return
                    "configuration.connections.\(name) must be a positive number of bytes a second (\(rate)); nil does not limit"
            }
        }
        return nil
    }

    /// Why `path` cannot name a Unix domain socket, the setting called `name`, or `nil`.
    static func socketPathProblem(_ path: String, named name: String) -> String? {
        if path.isEmpty || path.utf8.contains(0) { return "\(name) \(path.debugDescription) is not a path" }
        if path.utf8.count > UnixSocketURL.longestSocketPath {
            return
                "\(name) is \(path.utf8.count) bytes long; a socket's path holds at most \(UnixSocketURL.longestSocketPath)"
        }
        return nil
    }

    /// `duration` in whole seconds, rounded up, as libcurl's connection and cache options take it.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
