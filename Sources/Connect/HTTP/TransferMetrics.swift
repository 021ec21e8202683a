import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Timings of one exchange, each measured from its start.
public struct TransferMetrics: Sendable, Hashable {
    /// Until the host name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection was made.
    public var connect: Duration
    /// Until the TLS handshake finished (zero for plain HTTP).
    public var tlsHandshake: Duration
    /// Until the first byte of the response arrived.
    public var firstByte: Duration
    /// The whole exchange, redirects included.
    public var total: Duration
    /// How many redirects were followed.
    public var redirectCount: Int
    /// Bytes of the request sent (headers and body).
    public var bytesSent: Int
    /// Bytes of the response body received, before decompression.
    public var bytesReceived: Int
    /// Whether the exchange reused an open connection.
    public var reusedConnection: Bool

    /// Creates metrics; all zero by default.
    public init(
        nameLookup: Duration = .zero, connect: Duration = .zero, tlsHandshake: Duration = .zero,
        firstByte: Duration = .zero,
        total: Duration = .zero, redirectCount: Int = 0, bytesSent: Int = 0, bytesReceived: Int = 0,
        reusedConnection: Bool = false
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
        self.redirectCount = redirectCount
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.reusedConnection = reusedConnection
    }
}
