/// A `.netrc` file: user names and passwords per host, sent to the host they are listed for
/// (set ``ConnectConfiguration/netrc``).
///
/// A request that carries credentials itself (in its URL) uses those; the others to a host the
/// file lists get its `login` and `password` for that host, and libcurl sends them as Basic
/// authentication. Each redirect hop looks its own host up, so a redirect to another host never
/// carries the first host's credentials. libcurl reads the file on every request, so changes
/// to it apply at once.
///
/// ```swift
/// configuration.netrc = .home  // ~/.netrc, if there is one
/// configuration.netrc = NetrcFile(path: "/run/secrets/netrc")
/// ```
///
/// A file named by ``init(path:)`` must exist: a request fails with
/// ``ConnectError/invalidRequest(_:)`` naming it, before anything is sent, when it does not.
/// ``home`` may be missing, as for the `curl` command.
public struct NetrcFile: Sendable, Hashable {
    /// The file's path; `nil` for `.netrc` in the home directory (`$HOME`).
    public let path: String?

    /// `.netrc` in the user's home directory (`$HOME`), used only if it exists.
    public static let home = NetrcFile(homeFile: ())

    /// The file at `path`, which must exist.
    public init(path: String) {
        self.path = path
    }

    private init(homeFile: Void) {
        path = nil
    }
}
