internal import ConnectWire

/// One `Alt-Svc` field value (RFC 7838 §3), as a client reads it: `clear`, or the alternatives an
/// origin names for itself, each a protocol (an ALPN name: `h3`), where it is (a host, or the
/// origin's own, and a port) and how long it holds (`ma`, 24 hours unless it says).
///
/// Read leniently where the RFC lets a client ignore, strictly where a mistake would send a
/// request somewhere the origin never named: an alternative whose protocol, host or port does not
/// parse is left out and the others kept; an unknown parameter, or an `ma` that is not a number,
/// is ignored. At most ``maximumAlternatives`` are read from one field.
///
/// A decision value: tested with tables and fuzzed (`Fuzz/Sources/FuzzAltSvc`).
struct AltSvcField: Equatable, Sendable {
    /// One alternative the field names.
    struct Alternative: Equatable, Sendable {
        /// The ALPN protocol name, percent-decoded (`h3`, `h2`).
        var protocolID: String
        /// Its host, lowercased, without an IPv6 literal's brackets; `nil` for the origin's own.
        var host: String?
        var port: Int
        /// Seconds it holds from the response on (`ma`), at most ``largestMaxAge``.
        var maxAge: Int
        /// `persist=1`: it outlives a change of network.
        var persists: Bool
    }

    /// `clear`: the origin's alternatives are all gone.
    var clears = false
    var alternatives: [Alternative] = []

    /// How long an alternative holds when its field gives no `ma`: 24 hours (§3.1).
    static let defaultMaxAge = 86_400
    /// The largest `ma` kept, as delta-seconds are elsewhere (RFC 9111 §1.2.2): 2³¹.
    static let largestMaxAge = 2_147_483_648
    /// The most alternatives read from one field; the rest are ignored.
    static let maximumAlternatives = 16

    /// The field value `value` read.
    init(_ value: String) {
        let bytes = Array(value.utf8)
        let elements = Self.split(bytes[...], at: UInt8(ascii: ","))
        if elements.count == 1, Self.trimmed(elements[0]).elementsEqual("clear".utf8) {
            clears = true
            return
        }
        for element in elements where alternatives.count < Self.maximumAlternatives {
            if let alternative = Self.alternative(Self.trimmed(element)) { alternatives.append(alternative) }
        }
    }

    /// `protocol-id "=" alt-authority *( OWS ";" OWS parameter )`, or `nil` if it does not parse.
    private static func alternative(_ element: ArraySlice<UInt8>) -> Alternative? {
        let parts = split(element, at: UInt8(ascii: ";"))
        let first = trimmed(parts[0])
        guard let equals = first.firstIndex(of: UInt8(ascii: "=")),
            let protocolID = percentDecoded(first[first.startIndex..<equals]),
            let authority = quotedString(first[(equals + 1)...]),
            let (host, port) = Self.authority(authority)
        else { return nil }
        var alternative = Alternative(
            protocolID: protocolID, host: host, port: port, maxAge: defaultMaxAge, persists: false)
        for parameter in parts.dropFirst() {
            let parameter = trimmed(parameter)
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: parameter[parameter.startIndex..<equals], as: UTF8.self).lowercased()
            let rawValue = parameter[(equals + 1)...]
            guard let value = quotedString(rawValue) ?? (isToken(rawValue) ? Array(rawValue) : nil) else { continue }
            switch name {
            case "ma":
                if let seconds = deltaSeconds(value[...]) { alternative.maxAge = seconds }
            case "persist":
                alternative.persists = value == Array("1".utf8)
            default:
                break
            }
        }
        return alternative
    }

    /// `[ uri-host ] ":" port`: the host (`nil` when empty, lowercased, an IPv6 literal without
    /// its brackets) and a port of 1 to 65535.
    static func authority(_ text: [UInt8]) -> (host: String?, port: Int)? {
        guard let colon = text.lastIndex(of: UInt8(ascii: ":")),
            let port = deltaSeconds(text[(colon + 1)...]), (1...65535).contains(port),
            text.count - colon - 1 <= 5
        else { return nil }
        var host = text[..<colon]
        if host.first == UInt8(ascii: "[") {
            guard host.last == UInt8(ascii: "]"), host.count > 2 else { return nil }
            host = host.dropFirst().dropLast()
            guard host.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return nil
            }
        } else {
            // A reg-name or IPv4 address: letters, digits, `-`, `.`, `_`, `~` (no percent-encoding,
            // no user info, nothing a host cannot be).
            let allowed = { (byte: UInt8) in
                isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            }
            guard host.allSatisfy(allowed) else { return nil }
        }
        guard !host.isEmpty else { return (nil, port) }
        return (String(decoding: host, as: UTF8.self).lowercased(), port)
    }

    /// `bytes` split at each `separator` outside a quoted-string.
    private static func split(_ bytes: ArraySlice<UInt8>, at separator: UInt8) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var inQuotes = false
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inQuotes, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if byte == separator, !inQuotes {
                parts.append(bytes[start..<index])
                start = index + 1
            }
            index += 1
        }
        parts.append(bytes[start..<bytes.endIndex])
        return parts
    }

    /// `bytes` without the spaces and tabs around it.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// The content of a quoted-string that is all of `bytes`, its escapes undone; `nil` if
    /// `bytes` is not one.
    private static func quotedString(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return nil }
        var content: [UInt8] = []
        var index = bytes.startIndex + 1
        let end = bytes.endIndex - 1
        while index < end {
            var byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < end else { return nil }
                byte = bytes[index]
            } else if byte == UInt8(ascii: "\"") {
                return nil
            }
            guard byte >= 0x20 || byte == UInt8(ascii: "\t"), byte != 0x7F else { return nil }
            content.append(byte)
            index += 1
        }
        return content
    }

    /// A protocol-id: a token with `%XX` escapes (§3), decoded; `nil` if it is not one or
    /// decodes to nothing.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        guard isToken(bytes), let decoded = PercentEncoding.decoded(bytes) else { return nil }
        return String(validating: decoded, as: UTF8.self)
    }

    /// delta-seconds: digits only, at most ``largestMaxAge``.
    private static func deltaSeconds(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), largestMaxAge)
        }
        return value
    }

    /// A token (RFC 9110 §5.6.2), not empty.
    private static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(HeaderText.isTokenCharacter)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool { PercentEncoding.hexValue(byte) != nil }
}
