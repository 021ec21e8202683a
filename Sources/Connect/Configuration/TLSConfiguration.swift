#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How servers are trusted, and how this client proves who it is.
///
/// ```swift
/// configuration.tls.trustedCertificates = bundle.url(forResource: "corporate-ca", withExtension: "pem")
/// configuration.tls.pinnedPublicKeys = ["sha256//8DLnRMDOqwLxrwyLIzczSpbEA9DPCAg5Xd4Vg5XQI/0="]
/// configuration.tls.clientCertificate = ClientCertificate(certificate: certURL, privateKey: keyURL)
/// ```
/// Verification of the server's certificate chain and host name is always on unless
/// ``verifiesCertificates`` is turned off. A failed check (an untrusted, expired or wrong-host
/// certificate, or a pin that does not match) fails the request with ``ConnectError/tls(code:message:)``
/// during the handshake, before any byte of the request is sent. Pins are checked on every host
/// a request reaches: Connect follows redirects itself, and each hop is checked again.
public struct TLSConfiguration: Sendable, Hashable {
    /// The file URL of a PEM file of CA certificates to trust instead of the system's
    /// (`URL(filePath: "/etc/ssl/corporate-ca.pem")`, or a bundle resource's URL); `nil` uses the
    /// system's. A file that cannot be read fails each request with `ConnectError.tls`.
    public var trustedCertificates: URL?
    /// SPKI SHA-256 pins, `sha256//<base64>`: the server's public key must be one of them.
    /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    public var pinnedPublicKeys: [String]
    /// A PEM file of certificates the server's must be one of (certificate pinning); it takes
    /// the place of ``trustedCertificates``.
    public var pinnedCertificates: URL?
    /// A client certificate for servers that ask for one (mutual TLS).
    public var clientCertificate: ClientCertificate?
    /// Whether the server's certificate and host name are checked. Turning this off makes TLS
    /// worthless against an attacker; it is for local experiments only.
    public var verifiesCertificates: Bool

    /// Creates a configuration; the default trusts the system's CAs and pins nothing.
    public init(
        trustedCertificates: URL? = nil,
        pinnedPublicKeys: [String] = [],
        pinnedCertificates: URL? = nil,
        clientCertificate: ClientCertificate? = nil,
        verifiesCertificates: Bool = true
    ) {
        self.trustedCertificates = trustedCertificates
        self.pinnedPublicKeys = pinnedPublicKeys
        self.pinnedCertificates = pinnedCertificates
        self.clientCertificate = clientCertificate
        self.verifiesCertificates = verifiesCertificates
    }
}
