internal import ConnectWire

/// Revalidating a stored response (RFC 9111 §4.3): the conditional request's headers from the
/// stored validators, and the stored headers a 304 updates. A decision value, tested with tables.
enum CacheValidation {
    /// The headers that make a request conditional on the stored response (§4.3.1):
    /// `If-None-Match` with its `ETag`, `If-Modified-Since` with its `Last-Modified`; none when
    /// it has neither (the request then fetches the whole response again).
    static func conditionalHeaders(for stored: [HTTPHeader]) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        if let etag = stored.value(for: "ETag") { headers.append(HTTPHeader(name: "If-None-Match", value: etag)) }
        if let lastModified = stored.value(for: "Last-Modified") {
            headers.append(HTTPHeader(name: "If-Modified-Since", value: lastModified))
        }
        return headers
    }

    /// Fields a 304 never replaces in a stored response (§3.2): those that describe the stored
    /// content as it is (its length, its coding, the part it is, its trailers); lowered, as
    /// ``HTTPHeader`` compares names.
    static let fieldsKept: Set<String> = ["trailer", "content-length", "content-encoding", "content-range"]

    /// The stored response's headers after a 304 (§4.3.4): every field the 304 carries replaces
    /// the stored fields of that name, except ``fieldsKept`` and the fields of the hop the 304
    /// came over, which are never stored (``CacheStorability/storedFields(of:)``); the rest stay.
    static func headers(updating stored: [HTTPHeader], with notModified: [HTTPHeader]) -> [HTTPHeader] {
        let storable = CacheStorability.storedFields(of: notModified)
        let replacing = storable.removingFields(named: fieldsKept)
        // The usual 304 repeats the stored values: then the stored fields stand as they are.
        if repeatsValues(of: replacing, in: stored) { return stored }
        let kept = stored.removingFields(named: Set(replacing.map { HeaderText.foldedASCII($0.name) }))
        return kept + replacing
    }

    /// Whether `stored` has, for each name in `fields`, the values `fields` gives it and no
    /// others, in the same order.
    private static func repeatsValues(of fields: [HTTPHeader], in stored: [HTTPHeader]) -> Bool {
        for field in fields {
            var next = stored.startIndex
            for same in fields where same.hasName(field.name) {
                guard let found = stored[next...].firstIndex(where: { $0.hasName(field.name) }),
                    stored[found].value == same.value
                else { return false }
                next = found + 1
            }
            if stored[next...].contains(where: { $0.hasName(field.name) }) { return false }
        }
        return true
    }

    /// Whether a 304 answers for the stored response (§4.3.3): a strong `ETag` in both must be
    /// the same; with none in the 304, its `Last-Modified` must agree if both have one.
    static func notModifiedMatches(stored: [HTTPHeader], notModified: [HTTPHeader]) -> Bool {
        if let etag = notModified.value(for: "ETag") {
            guard let storedTag = stored.value(for: "ETag") else { return false }
            return weakComparison(etag, storedTag)
        }
        if let lastModified = notModified.value(for: "Last-Modified"),
            let storedLastModified = stored.value(for: "Last-Modified")
        {
            return lastModified == storedLastModified
        }
        return true
    }

    /// RFC 9110 §8.8.3.2's weak comparison: the same opaque tag, `W/` or not.
    static func weakComparison(_ first: String, _ second: String) -> Bool {
        // The usual case, a server repeating the tag it gave, needs no trimming.
        if first == second { return true }
        func opaque(_ tag: String) -> Substring {
            let trimmed = tag.trimmingHTTPSpaces
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        return opaque(first) == opaque(second)
    }
}
