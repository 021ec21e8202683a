/// Whether a client follows the HTTP/3 alternatives origins advertise in `Alt-Svc` (RFC 7838):
/// a response over HTTP/2 or 1.1 that says `Alt-Svc: h3=":443"` sends the origin's later
/// requests over HTTP/3 (QUIC) there.
///
/// ```swift
/// var configuration = ConnectConfiguration()
/// configuration.alternativeServices = .remembered
/// // or kept between runs, in the file format curl's --alt-svc uses:
/// configuration.alternativeServices = .persisted(at: "/var/cache/app/alt-svc.txt")
/// ```
///
/// It takes a libcurl with HTTP/3 (see ``HTTPVersionPolicy/http3``) and applies to `https`
/// requests whose version policy allows HTTP/3 (``HTTPVersionPolicy/automatic``, `.http3` and
/// `.http3Only`) and that go out directly: not through a proxy, a Unix domain socket or
/// ``ConnectionSettings/connectTo`` entries, which say where connections go already.
///
/// An alternative that does not answer within ``fallbackAfter`` (or fails its handshake, or its
/// certificate is not valid for the origin) is *broken*: the request goes to the origin the way
/// it would have without it, with nothing sent twice, and the alternative is not tried again
/// until its advertised lifetime (`ma`) ends.
public struct AlternativeServices: Sendable, Hashable {
    enum Storage: Sendable, Hashable {
        case ignored
        case memory
        case file(String)
    }

    let storage: Storage

    /// How long a connection to an alternative may take before the request falls back to the
    /// origin: 3 seconds. QUIC's handshake is one round trip; where UDP is blocked it never
    /// completes, and this bounds what finding that out costs, once per alternative.
    public var fallbackAfter: Duration = .seconds(3)

    /// `Alt-Svc` is not read: requests go where their URL says (the default).
    public static let ignored = AlternativeServices(storage: .ignored)

    /// Advertised alternatives are kept in memory for the client's lifetime.
    public static let remembered = AlternativeServices(storage: .memory)

    /// Advertised alternatives are kept in the file at `path` as well, read when the client is
    /// made and written when they change: the alt-svc cache format of libcurl and `curl
    /// --alt-svc`, so that the two can share one. A file that is missing starts empty; lines
    /// that do not read are skipped.
    public static func persisted(at path: String) -> AlternativeServices {
        AlternativeServices(storage: .file(path))
    }

    /// Whether `Alt-Svc` is read at all.
    var isEnabled: Bool { storage != .ignored }

    /// The setting that cannot work, named as an app sets it, or `nil`.
    var problem: String? {
        if fallbackAfter <= .zero {
            return "configuration.alternativeServices.fallbackAfter must be positive (\(fallbackAfter))"
        }
        if case .file(let path) = storage, path.isEmpty || path.contains("\0") {
            return "configuration.alternativeServices: .persisted(at: \(path.debugDescription)) names no file"
        }
        return nil
    }
}
