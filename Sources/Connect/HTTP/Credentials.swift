/// A user name and password for a server that asks for them: set on a ``Connector``
/// (``Connector/credentials``) or a ``Request`` (``Request/credentials``).
///
/// libcurl answers the server's challenge (a `401` with `WWW-Authenticate`) with the strongest
/// of ``schemes`` the server offers, and sends the request again, its body too, on the same
/// connection:
///
/// ```swift
/// request.credentials = Credentials(username: "ops", password: secret)                     // Digest, NTLM or Negotiate
/// request.credentials = Credentials(username: "ops", password: secret, schemes: .basic)    // Basic, at once
/// ```
///
/// Only Basic alone goes out with the first request; with any other scheme among them, the
/// first request goes without credentials (and with an empty body, for a method that has one)
/// and the second answers the challenge. A redirect to another origin drops the credentials, as
/// it drops ``ConnectConfiguration/sensitiveHeaders``; `debugResponse` output shows the user
/// name and the schemes, never the password. A one-time stream body
/// (``RequestBody/stream(_:count:contentType:)``) cannot be sent the second time a challenge
/// asks for: use a replayable one.
public struct Credentials: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var username: String
    /// The password.
    public var password: String
    /// The schemes the server may ask for; ``AuthenticationSchemes/challenged`` by default.
    public var schemes: AuthenticationSchemes

    /// Credentials for the schemes `schemes`.
    public init(username: String, password: String, schemes: AuthenticationSchemes = .challenged) {
        self.username = username
        self.password = password
        self.schemes = schemes
    }

    /// Negotiate alone, with the system's GSS-API credentials (see
    /// ``AuthenticationSchemes/negotiate``): no user name or password.
    public static let negotiate = Credentials(username: "", password: "", schemes: .negotiate)

    /// The user name and schemes; the password redacted.
    public var description: String { "\(username):<redacted> (\(schemes))" }
}

/// HTTP authentication schemes that libcurl answers a challenge with.
public struct AuthenticationSchemes: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The schemes as bits, one per scheme (not libcurl's `CURLAUTH_*` values).
    public let rawValue: Int

    /// Creates a set from its raw value.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Basic (RFC 7617): the password, in base64, on every request. Only over HTTPS.
    public static let basic = AuthenticationSchemes(rawValue: 1 << 0)
    /// Digest (RFC 7616), with MD5 or SHA-256 as the server asks, and `qop`.
    public static let digest = AuthenticationSchemes(rawValue: 1 << 1)
    /// NTLM, as Windows servers and proxies ask for it.
    public static let ntlm = AuthenticationSchemes(rawValue: 1 << 2)
    /// Negotiate (SPNEGO, RFC 4559), through the system's GSS-API: Kerberos with a ticket from
    /// its credential cache (`kinit`), or NTLM inside SPNEGO where GSS-API has an NTLM mechanism
    /// (gss-ntlmssp, with its own account file). The user name and password are not used for it.
    public static let negotiate = AuthenticationSchemes(rawValue: 1 << 3)
    /// Every scheme that answers a challenge without sending the password as it is: Digest,
    /// NTLM and Negotiate.
    public static let challenged: AuthenticationSchemes = [.digest, .ntlm, .negotiate]

    /// The schemes by name, "digest, ntlm".
    public var description: String {
        [(Self.basic, "basic"), (.digest, "digest"), (.ntlm, "ntlm"), (.negotiate, "negotiate")]
            .filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}
