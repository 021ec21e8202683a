internal import ConnectWire

/// The directives of a message's `Cache-Control` fields (RFC 9111 §5.2), every field line
/// together, as a private cache reads them; a request's and a response's share the type, each
/// using its own.
///
/// Arguments are read in token and quoted-string form alike (§5.2: recipients accept both). A
/// delta-seconds past 2³¹ is 2³¹ (§1.2.2). A freshness directive (`max-age`) that is not a number,
/// or that is given twice with different values, makes ``hasInvalidFreshness`` true: §4.2.1
/// encourages treating such a response as stale. Unknown directives are ignored.
///
/// A decision value: tested with tables and fuzzed (`Fuzz/Sources/FuzzCacheControl`).
struct CacheControl: Equatable, Sendable {
    /// The largest delta-seconds a cache keeps (§1.2.2).
    static let largestSeconds = 2_147_483_648

    /// How stale a request accepts a response to be (`max-stale`).
    enum MaxStale: Equatable, Sendable {
        /// `max-stale` without an argument: any staleness.
        case any
        case seconds(Int)
    }

    var maxAge: Int?
    /// `s-maxage`: a shared cache's; a private cache only notes it for storing answers to
    /// requests with `Authorization` (§3.5).
    var sharedMaxAge: Int?
    var maxStale: MaxStale?
    var minFresh: Int?
    var staleWhileRevalidate: Int?
    var staleIfError: Int?
    var noCache = false
    var noStore = false
    var isPrivate = false
    var isPublic = false
    var mustRevalidate = false
    var proxyRevalidate = false
    var onlyIfCached = false
    var immutable = false
    /// A `max-age` that is not a number or that two fields give differently.
    var hasInvalidFreshness = false

    init() {}

    /// The directives of every `Cache-Control` field in `headers`.
    init(headers: [HTTPHeader]) {
        self.init()
        for value in headers.values(for: "Cache-Control") {
            read(value)
        }
    }

    /// The directives of one field value.
    init(_ value: String) {
        self.init()
        read(value)
    }

    private mutating func read(_ value: String) {
        for (name, argument) in Self.directives(in: value) {
            switch name {
            case "max-age":
                guard let seconds = argument.flatMap(Self.seconds) else {
                    hasInvalidFreshness = true
                    continue
                }
                if let earlier = maxAge, earlier != seconds { hasInvalidFreshness = true }
                maxAge = maxAge ?? seconds
            case "s-maxage": sharedMaxAge = sharedMaxAge ?? argument.flatMap(Self.seconds)
            case "max-stale":
                if let argument {
                    // An argument that is not a number accepts no staleness: the restrictive reading.
                    if maxStale == nil, let seconds = Self.seconds(argument) { maxStale = .seconds(seconds) }
                } else {
                    maxStale = .any
                }
            case "min-fresh": minFresh = minFresh ?? argument.flatMap(Self.seconds)
            case "stale-while-revalidate": staleWhileRevalidate = staleWhileRevalidate ?? argument.flatMap(Self.seconds)
            case "stale-if-error": staleIfError = staleIfError ?? argument.flatMap(Self.seconds)
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "only-if-cached": onlyIfCached = true
            case "immutable": immutable = true
            default: break
            }
        }
    }

    /// A delta-seconds argument (§1.2.2): digits only, capped at 2³¹.
    static func seconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var value = 0
        for digit in text.utf8 {
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            if value >= largestSeconds { return largestSeconds }
        }
        return value
    }

    /// The directives of a field value, in order: each name lowercased, with its argument
    /// (unquoted) if it has one. A piece that is not a directive is skipped to the next comma.
    static func directives(in value: String) -> [(name: String, argument: String?)] {
        let bytes = Array(value.utf8)
        var result: [(name: String, argument: String?)] = []
        var index = 0
        func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
        }
        func skipToNextDirective() {
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            index += 1
        }
        func token() -> ArraySlice<UInt8> {
            let start = index
            while index < bytes.count, HeaderText.isTokenCharacter(bytes[index]) { index += 1 }
            return bytes[start..<index]
        }
        while index < bytes.count {
            skipSpaces()
            let name = String(decoding: token(), as: UTF8.self).lowercased()
            skipSpaces()
            guard !name.isEmpty else {
                skipToNextDirective()
                continue
            }
            if index == bytes.count || bytes[index] == UInt8(ascii: ",") {
                result.append((name, nil))
                skipToNextDirective()
                continue
            }
            guard bytes[index] == UInt8(ascii: "=") else {
                skipToNextDirective()
                continue
            }
            index += 1
            skipSpaces()
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                // A quoted-string: a backslash takes the next byte as it is.
                index += 1
                var unquoted: [UInt8] = []
                var closed = false
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                    if byte == UInt8(ascii: "\\"), index < bytes.count {
                        unquoted.append(bytes[index])
                        index += 1
                    } else {
                        unquoted.append(byte)
                    }
                }
                skipSpaces()
                if closed, index == bytes.count || bytes[index] == UInt8(ascii: ",") {
                    result.append((name, String(decoding: unquoted, as: UTF8.self)))
                }
            } else {
                let argument = token()
                skipSpaces()
                if index == bytes.count || bytes[index] == UInt8(ascii: ",") {
                    result.append((name, String(decoding: argument, as: UTF8.self)))
                }
            }
            skipToNextDirective()
        }
        return result
    }
}
