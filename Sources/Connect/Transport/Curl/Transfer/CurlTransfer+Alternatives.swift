import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The advertised HTTP/3 alternative (`Alt-Svc`) a transfer goes to, and the origin it stands in
/// for. An object, so that a transfer without one carries a single empty reference.
final class AlternativeRoute {
    let origin: AlternativeServiceTable.Origin
    let alternative: AlternativeServiceTable.Alternative

    init(origin: AlternativeServiceTable.Origin, alternative: AlternativeServiceTable.Alternative) {
        self.origin = origin
        self.alternative = alternative
    }

    /// The `CURLOPT_CONNECT_TO` entry that sends the origin's connections to the alternative.
    var connectToEntry: String {
        ConnectTo(host: origin.host, port: origin.port, connectHost: alternative.host, connectPort: alternative.port)
            .curlEntry
    }
}

/// Following the HTTP/3 alternatives origins advertise (``AlternativeServices``): where a
/// transfer goes, what happens when the alternative fails, and what a response advertises.
/// libcurl has an alt-svc cache of its own, but it keeps one per easy handle and writes its file
/// only when a handle is cleaned up, while a transport shares its handles among all its
/// requests; and when the alternative it chose fails, the transfer fails. So the transport keeps
/// the table (``AlternativeServiceCache``) and steers each transfer with
/// `CURLOPT_CONNECT_TO` and HTTP/3 only, and falls back itself.
extension CurlTransfer {
    /// For ``configureHTTPVersion(_:url:)``, an https request whose version policy allows
    /// HTTP/3: whether it goes to an alternative its origin advertised, over HTTP/3 only, within
    /// the fallback bound. Not a request that names its own route, or goes through a proxy or
    /// a socket, which say where connections go already.
    @inline(never)
    func configureAlternative(_ handle: CurlEasyHandle, fallback: Duration) -> Bool {
        guard let cache = handle.connections.alternativeServices, LibcurlFeatures.running.hasHTTP3,
            !settings.goesThroughProxies, unixSocketPath == nil,
            request.connectTo.isEmpty, settings.connections.connectTo.isEmpty,
            let origin = Self.alternativeOrigin(of: request.url), let alternative = cache.alternative(for: origin)
        else { return false }
        let route = AlternativeRoute(origin: origin, alternative: alternative)
        alternativeRoute = route
        state.headsForAlternative()
        if alternative.host != origin.host || alternative.port != origin.port {
            handle.setConnectTo([route.connectToEntry])
        }
        setConnectTimeout(on: handle, cutTo: fallback)
        handle.setHTTPVersion(CURL_HTTP_VERSION_3ONLY, waitingForMultiplexing: true)
        return true
    }

    /// The alternative failed before the transfer had a connection (see
    /// ``ResendDecision/fallsBackFromAlternative(_:connectionsChosen:)``): it is marked broken
    /// and the transfer's options point at the origin again, for the restart.
    @inline(never)
    func leaveAlternative(on handle: CurlEasyHandle) {
        guard let route = alternativeRoute else { return }
        alternativeRoute = nil
        handle.connections.alternativeServices?.markBroken(route.alternative, of: route.origin)
        handle.set(CURLOPT_CONNECT_TO, slist: nil)
        setConnectTimeout(on: handle)
        try? configureHTTPVersion(handle, url: request.url.absoluteString)
    }

    /// The `Alt-Svc` fields of the response in `received`, from an https origin, kept.
    @inline(never)
    func recordAlternatives(in received: ResponseBuffers, cache: AlternativeServiceCache) {
        guard unixSocketPath == nil, (200..<600).contains(state.statusCode),
            let origin = Self.alternativeOrigin(of: request.url)
        else { return }
        let values = received.headers.values(for: "Alt-Svc")
        guard !values.isEmpty else { return }
        cache.record(values, from: origin)
    }

    /// The origin of an https URL, as the alternative-service table keys it; `nil` for another
    /// scheme.
    static func alternativeOrigin(of url: URL) -> AlternativeServiceTable.Origin? {
        guard url.scheme?.lowercased() == "https", let host = url.host(percentEncoded: false), !host.isEmpty else {
            return nil
        }
        var bare = host.lowercased()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        return AlternativeServiceTable.Origin(host: bare, port: url.port ?? 443)
    }
}
