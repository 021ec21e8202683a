internal import ConnectWire

/// Which stored response a request may be answered with, of those stored for its URL (RFC 9111
/// §4.1): each field its `Vary` names must have the same value in the new request as in the
/// request that got the stored response. A decision value, tested with tables.
enum CacheVariant {
    /// The field names a response's `Vary` lists, lowercased; `["*"]` for `Vary: *`.
    static func varyingFields(of responseHeaders: [HTTPHeader]) -> [String] {
        responseHeaders.values(for: "Vary")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingHTTPSpaces.lowercased() }
            .filter { !$0.isEmpty }
    }

    /// Whether a response stored with `vary` (its `Vary` fields) for a request with
    /// `storedRequestHeaders` answers a request with `requestHeaders`: `Vary: *` never does;
    /// every other field named must agree, its lines joined with commas and the spaces around
    /// each value dropped (§4.1's normalization), a field absent in both agreeing.
    static func matches(vary: [String], storedRequestHeaders: [HTTPHeader], requestHeaders: [HTTPHeader]) -> Bool {
        if vary.contains("*") { return false }
        return vary.allSatisfy { name in
            normalized(name, in: storedRequestHeaders) == normalized(name, in: requestHeaders)
        }
    }

    /// A field's value as Vary compares it: every line's values, trimmed, joined with `,`;
    /// `nil` when the field is absent.
    static func normalized(_ name: String, in headers: [HTTPHeader]) -> String? {
        let lines = headers.values(for: name)
        guard !lines.isEmpty else { return nil }
        return lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingHTTPSpaces }
            .joined(separator: ",")
    }
}
