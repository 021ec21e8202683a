/// Whether a connection that already carries exchanges may carry one more: the rule that keeps
/// every response with the request it answers.
///
/// An HTTP/1 connection carries one exchange at a time; only a connection that multiplexes
/// (HTTP/2) carries several. libcurl decides which connection a transfer goes out on, from what
/// it believes of the origin's connections, and libcurl 7.88 believes a status line: an
/// `HTTP/2 200` read from an HTTP/1.1 connection marks every connection to that origin as
/// multiplexing, and the next requests are written down busy HTTP/1.1 connections, where they
/// read each other's answers. The transport refuses every such head (see
/// ``CurlTransfer``'s `headCameFromHTTP2Frames`) and notes it; before a request goes out, it
/// checks libcurl's choice of connection here, and a refused choice sends the request on a
/// new connection instead.
enum ConnectionSharing {
    /// - Parameters:
    ///   - inFlight: exchanges on the connection that have not ended, as the transport counts
    ///     them: a transfer counts until the transport collects it, which can be after libcurl
    ///     has let go of its connection, so the count may be one too high, never too low.
    ///   - multiplexingProven: the connection was opened for HTTP/2 with prior knowledge, or a
    ///     response head on it was decoded from HTTP/2 frames.
    ///   - sawHTTP2Claim: a head on some connection of this transport claimed HTTP/2 on an
    ///     HTTP/1 connection. Until one did, libcurl shares only connections that agreed on
    ///     HTTP/2 (in the TLS handshake, or by prior knowledge), and its choice stands.
    static func allowsAnotherExchange(inFlight: Int, multiplexingProven: Bool, sawHTTP2Claim: Bool) -> Bool {
        inFlight == 0 || multiplexingProven || !sawHTTP2Claim
    }
}
