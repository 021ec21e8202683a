extension ConnectConfiguration {
    /// The first setting that cannot work, named as an app sets it, or `nil`. A client made with
    /// such a configuration fails every request with ``ConnectError/invalidRequest(_:)`` naming
    /// it, before anything is sent.
    ///
    /// libcurl reads a limit of 0 as "none": a timeout of zero would reach it as "never" (Connect
    /// hands it at least a millisecond, so every request would time out a millisecond in, as if
    /// the network were slow), and at most 0 connections a host as "any number". Neither is what
    /// the setting says, so neither is passed on.
    var problem: String? {
        if timeout <= .zero { return "configuration.timeout must be positive (\(timeout))" }
        if connectTimeout <= .zero { return "configuration.connectTimeout must be positive (\(connectTimeout))" }
        if maximumConnectionsPerHost < 1 {
            return "configuration.maximumConnectionsPerHost must be at least 1 (\(maximumConnectionsPerHost))"
        }
        if maximumResponseBodySize < 0 {
            return "configuration.maximumResponseBodySize is negative (\(maximumResponseBodySize))"
        }
        if maximumRedirects < 0 {
            return "configuration.maximumRedirects is negative (\(maximumRedirects)); 0 follows none"
        }
        return connections.problem ?? alternativeServices.problem
    }
}
