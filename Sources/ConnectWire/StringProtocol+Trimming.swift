extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: HTTP's optional whitespace
    /// (RFC 9110 §5.6.3) around a header value or one of its parameters.
    package var trimmingHTTPSpaces: SubSequence {
        trimming { $0 == " " || $0 == "\t" }
    }

    /// The text without leading and trailing whitespace and line breaks, as Unicode defines them.
    package var trimmingWhitespace: SubSequence {
        trimming(\.isWhitespace)
    }

    package func trimming(_ isTrimmed: (Character) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
