#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A certificate and its private key, as PEM files, for mutual TLS.
public struct ClientCertificate: Sendable, Hashable {
    /// The certificate (PEM).
    public var certificate: URL
    /// Its private key (PEM).
    public var privateKey: URL
    /// The private key's password, if it is encrypted.
    public var password: String?

    /// Creates a client certificate.
    public init(certificate: URL, privateKey: URL, password: String? = nil) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.password = password
    }
}
