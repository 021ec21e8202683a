internal import ConnectWire

/// The HTTP/3 alternatives each origin advertised (`Alt-Svc`, RFC 7838), which of them failed,
/// and the file they are kept in between runs: a decision value, kept by
/// ``AlternativeServiceCache`` and tested without sockets (`AlternativeServiceTableTests`).
///
/// Only `h3` alternatives are kept: Connect reaches an origin elsewhere only to speak HTTP/3
/// there. A field from an origin replaces every alternative it advertised before (§3.1), and
/// `clear` removes them. An alternative that failed is *broken*: it is not tried again until the
/// time it was advertised to hold until then, whatever the origin advertises meanwhile (else an
/// origin that names a dead alternative in every response would cost every request a try).
///
/// Times are whole seconds since 1970 (UTC), as the file writes them.
struct AlternativeServiceTable: Equatable, Sendable {
    /// An origin: an https URL's host, lowercased, and port.
    struct Origin: Hashable, Sendable {
        var host: String
        var port: Int
    }

    /// Where an origin is reached over HTTP/3, and until when.
    struct Alternative: Hashable, Sendable {
        var host: String
        var port: Int
        /// The second it stops holding.
        var expires: Int
        /// `persist=1` (kept, not acted on: Connect does not watch the network).
        var persists = false
    }

    /// The most origins kept; past it, those whose alternatives expire first make room.
    static let maximumOrigins = 1_000

    /// An alternative that failed: where it was, and the second it may be tried again.
    struct Breakage: Hashable, Sendable {
        var host: String
        var port: Int
        var until: Int
    }

    private(set) var alternatives: [Origin: [Alternative]] = [:]
    /// The alternatives that failed, by origin.
    private(set) var broken: [Origin: [Breakage]] = [:]

    init() {}

    /// What a response from `origin` advertised in its `Alt-Svc` fields, at `now`. Returns
    /// whether the table a file holds changed: which alternatives there are, or when one
    /// expires by more than a tenth of its lifetime (a field that repeats on every response
    /// moves the expiry a little each time, which is not worth a write).
    @discardableResult
    mutating func record(_ field: AltSvcField, from origin: Origin, now: Int) -> Bool {
        let before = alternatives[origin] ?? []
        let advertised =
            field.clears
            ? []
            : field.alternatives.filter { $0.protocolID == "h3" && $0.maxAge > 0 }.map {
                Alternative(
                    host: $0.host ?? origin.host, port: $0.port, expires: now + $0.maxAge, persists: $0.persists)
            }
        alternatives[origin] = advertised.isEmpty ? nil : advertised
        if !advertised.isEmpty, before.isEmpty, alternatives.count > Self.maximumOrigins { evictSoonestExpiring() }
        guard advertised.count == before.count else { return true }
        for (new, old) in zip(advertised, before) {
            guard new.host == old.host, new.port == old.port, new.persists == old.persists else { return true }
            if abs(new.expires - old.expires) > max(60, (new.expires - now) / 10) { return true }
        }
        return false
    }

    /// The HTTP/3 alternative to reach `origin` at, at `now`: the first it advertised that
    /// still holds and has not failed; `nil` when there is none.
    func alternative(for origin: Origin, now: Int) -> Alternative? {
        guard let candidates = alternatives[origin] else { return nil }
        let failed = broken[origin] ?? []
        return candidates.first { candidate in
            candidate.expires > now
                && !failed.contains { $0.host == candidate.host && $0.port == candidate.port && $0.until > now }
        }
    }

    /// `alternative` of `origin` failed at `now`: it is not tried again until it expires.
    mutating func markBroken(_ alternative: Alternative, of origin: Origin, now: Int) {
        var failed = (broken[origin] ?? []).filter {
            $0.until > now && !($0.host == alternative.host && $0.port == alternative.port)
        }
        failed.append(
            Breakage(host: alternative.host, port: alternative.port, until: max(alternative.expires, now + 1)))
        broken[origin] = failed
    }

    /// Makes room for one more origin: the one whose alternatives all expire first leaves.
    private mutating func evictSoonestExpiring() {
        guard
            let soonest = alternatives.min(by: {
                ($0.value.map(\.expires).max() ?? 0) < ($1.value.map(\.expires).max() ?? 0)
            })
        else { return }
        alternatives[soonest.key] = nil
        broken[soonest.key] = nil
    }
}

// MARK: The file

extension AlternativeServiceTable {
    /// The table read from `text`, the alternative-service cache file libcurl and the `curl`
    /// command write (`--alt-svc`, `CURLOPT_ALTSVC`), so that the two can share one: a line per
    /// alternative, `source-alpn source-host source-port alpn host port "YYYYMMDD HH:MM:SS"
    /// persist priority`, `#` starting a comment, an IPv6 host in brackets. Lines that do not
    /// read, name another protocol than `h3`, or have expired at `now` are skipped.
    init(file text: String, now: Int) {
        self.init()
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 10, !fields[0].hasPrefix("#"), fields[3] == "h3",
                let sourceHost = Self.host(fields[1]), let sourcePort = Self.port(fields[2]),
                let host = Self.host(fields[4]), let port = Self.port(fields[5]),
                let expires = Self.seconds(date: fields[6], time: fields[7]), expires > now
            else { continue }
            let origin = Origin(host: sourceHost, port: sourcePort)
            guard alternatives[origin] != nil || alternatives.count < Self.maximumOrigins else { continue }
            alternatives[origin, default: []].append(
                Alternative(host: host, port: port, expires: expires, persists: fields[8] == "1"))
        }
    }

    /// The table as the file ``init(file:now:)`` reads, without what expired at `now`; the
    /// source protocol is written as `h2`, which libcurl reads for any https origin.
    func fileText(now: Int) -> String {
        var text = "# Alternative services (RFC 7838) Connect and curl read: curl's alt-svc file format.\n"
        let origins = alternatives.keys.sorted { ($0.host, $0.port) < ($1.host, $1.port) }
        for origin in origins {
            for alternative in alternatives[origin] ?? [] where alternative.expires > now {
                text +=
                    "h2 \(ConnectTo.bracketed(origin.host)) \(origin.port) h3 \(ConnectTo.bracketed(alternative.host)) "
                    + "\(alternative.port) \"\(Self.stamp(alternative.expires))\" \(alternative.persists ? 1 : 0) 0\n"
            }
        }
        return text
    }

    /// A host field read: brackets taken off an IPv6 literal, lowercased; `nil` for one an
    /// `Alt-Svc` authority could not name.
    private static func host(_ field: Substring) -> String? {
        AltSvcField.authority(Array((field + ":1").utf8)).flatMap(\.host)
    }

    private static func port(_ field: Substring) -> Int? {
        guard field.count <= 5, let port = Int(field), (1...65535).contains(port) else { return nil }
        return port
    }

    /// `"YYYYMMDD` and `HH:MM:SS"` (UTC), as seconds since 1970.
    private static func seconds(date: Substring, time: Substring) -> Int? {
        let date = Array(date.utf8)
        let time = Array(time.utf8)
        guard date.count == 9, date[0] == UInt8(ascii: "\""), time.count == 9, time[8] == UInt8(ascii: "\""),
            time[2] == UInt8(ascii: ":"), time[5] == UInt8(ascii: ":"),
            let year = number(date[1..<5]), let month = number(date[5..<7]), let day = number(date[7..<9]),
            let hour = number(time[0..<2]), let minute = number(time[3..<5]), let second = number(time[6..<8]),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = HTTPDate.daysSince1970(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// `seconds` since 1970 as `YYYYMMDD HH:MM:SS` (UTC): days to a civil date, years counted
    /// from March so that the leap day falls at a year's end (the inverse of
    /// `HTTPDate.daysSince1970`).
    static func stamp(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)\(two(month))\(two(day)) \(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):"
            + two(secondOfDay % 60)
    }
}
