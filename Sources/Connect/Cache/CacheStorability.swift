internal import ConnectWire

/// Whether a private cache may store a response (RFC 9111 §3), and why not: a decision value,
/// tested with tables.
enum CacheStorability: Equatable, Sendable {
    case storable
    /// Not stored, for this reason.
    case notStorable(Reason)

    /// Why a response is not stored.
    enum Reason: Equatable, Sendable {
        /// Only GET responses are stored: HEAD has no body to answer a GET with, and other
        /// methods' responses are not reused (§2).
        case method
        /// Not a final status, or a 206 (a part of the content, not stored as the whole).
        case status
        /// `no-store` in the request or the response (§5.2.1.5, §5.2.2.5).
        case noStore
        /// The request carried `Authorization` and the response did not allow it to be reused
        /// (§3.5: `public`, `must-revalidate` or `s-maxage`).
        case authorization
        /// Neither an explicit lifetime, nor a status cacheable by default, nor `public` or
        /// `private` (§3).
        case noFreshnessInformation
        /// `Vary: *`: no later request can match it (§4.1).
        case varyAll
    }

    /// Decides for a response with `status` and `headers` to a request with `method` and
    /// `requestHeaders`.
    static func decide(
        method: String, requestHeaders: [HTTPHeader], status: Int, headers: [HTTPHeader]
    ) -> CacheStorability {
        guard method == "GET" else { return .notStorable(.method) }
        guard status >= 200, status != 206 else { return .notStorable(.status) }
        let request = CacheControl(headers: requestHeaders)
        let response = CacheControl(headers: headers)
        if request.noStore || response.noStore { return .notStorable(.noStore) }
        if requestHeaders.contains(name: "Authorization"),
            !(response.isPublic || response.mustRevalidate || response.sharedMaxAge != nil)
        {
            return .notStorable(.authorization)
        }
        if CacheVariant.varyingFields(of: headers).contains("*") { return .notStorable(.varyAll) }
        let explicit =
            response.maxAge != nil || response.sharedMaxAge != nil || headers.contains(name: "Expires")
            || response.isPublic || response.isPrivate || response.hasInvalidFreshness
        guard explicit || CacheFreshness.heuristicallyCacheable.contains(status) else {
            return .notStorable(.noFreshnessInformation)
        }
        return .storable
    }

    /// The fields of a hop, not of the response (RFC 9111 §3.1): the connection's own and
    /// those for the proxy in between; lowered, as ``HTTPHeader`` compares names.
    static let hopFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "proxy-authenticate",
        "proxy-authentication-info", "proxy-authorization"
    ]

    /// The fields a stored response keeps of `headers`: every one but ``hopFields`` and the
    /// fields `Connection` names (§3.1), which describe the hop it came over.
    static func storedFields(of headers: [HTTPHeader]) -> [HTTPHeader] {
        let named = headers.values(for: "Connection")
            .flatMap { $0.split(separator: ",").map { HeaderText.foldedASCII(String($0.trimmingHTTPSpaces)) } }
        return headers.removingFields(named: named.isEmpty ? hopFields : hopFields.union(named))
    }
}
