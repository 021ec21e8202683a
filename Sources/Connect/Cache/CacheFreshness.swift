internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How fresh a stored response is (RFC 9111 §4.2), as a private cache reckons it: its freshness
/// lifetime and its current age, from its headers, the time its request went out, the time it
/// arrived and the time now. Times are whole seconds since 1970 from an injected clock, so that
/// no test waits.
struct CacheFreshness: Equatable, Sendable {
    /// Where the freshness lifetime came from.
    enum Source: Equatable, Sendable {
        case maxAge
        case expires
        /// §4.2.2: a tenth of the time since `Last-Modified`, where the response allows it.
        case heuristic
        /// No explicit lifetime and none may be guessed, or freshness information that is
        /// invalid: stale at once.
        case none
    }

    /// Seconds the response stays fresh after it was generated.
    let lifetime: Int
    let source: Source
    /// Its age now, in seconds (§4.2.3).
    let age: Int

    /// Whether it may be used without asking the server (§4.2).
    var isFresh: Bool { lifetime > age }
    /// How far past its lifetime it is, in seconds (0 while fresh).
    var staleness: Int { max(0, age - lifetime) }
    /// How long it stays fresh from now, in seconds (negative once stale).
    var freshnessLeft: Int { lifetime - age }

    /// The status codes heuristically cacheable (RFC 9110 §15.1), which may get a heuristic
    /// lifetime when they carry no explicit one.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// What a stored response's freshness is reckoned from at any later time, worked out once
    /// from its fields: its lifetime, and the age it had when it arrived.
    struct Basis: Equatable, Sendable {
        let lifetime: Int
        let source: Source
        /// §4.2.3's `corrected_initial_age`.
        let initialAge: Int
        let responseTime: Int

        /// The basis of a response with `status`, `headers` and `control` (its `Cache-Control`),
        /// requested at `requestTime`, received at `responseTime`.
        init(status: Int, headers: [HTTPHeader], control: CacheControl, requestTime: Int, responseTime: Int) {
            let date = CacheFreshness.date(headers, "Date") ?? .valid(responseTime)
            let dateValue: Int = if case .valid(let seconds) = date { seconds } else { responseTime }
            (lifetime, source) = CacheFreshness.lifetime(
                status: status, headers: headers, control: control, date: dateValue)
            initialAge = CacheFreshness.age(
                headers: headers, date: dateValue, requestTime: requestTime, responseTime: responseTime,
                now: responseTime)
            self.responseTime = responseTime
        }
    }

    /// The freshness at `now` of a response whose basis is `basis`: its age grows by the time
    /// it has been stored (§4.2.3's `resident_time`).
    init(basis: Basis, now: Int) {
        lifetime = basis.lifetime
        source = basis.source
        age = basis.initialAge + max(0, now - basis.responseTime)
    }

    /// The freshness of a response with `status` and `headers`, requested at `requestTime`,
    /// received at `responseTime`, reckoned at `now`.
    init(status: Int, headers: [HTTPHeader], requestTime: Int, responseTime: Int, now: Int) {
        self.init(
            basis: Basis(
                status: status, headers: headers, control: CacheControl(headers: headers), requestTime: requestTime,
                responseTime: responseTime),
            now: now)
    }

    /// §4.2.1, for a private cache: `max-age`, else `Expires` minus `Date`, else a heuristic
    /// where the status or `public` allows one. Freshness information that is invalid (a `max-age`
    /// that is not a number or given twice differently, an `Expires` that is not a date or given
    /// twice differently) makes the response stale, as §4.2.1 encourages.
    static func lifetime(status: Int, headers: [HTTPHeader], control: CacheControl, date: Int) -> (Int, Source) {
        if control.hasInvalidFreshness { return (0, .none) }
        if let maxAge = control.maxAge { return (maxAge, .maxAge) }
        switch Self.date(headers, "Expires") {
        case .valid(let expires)?: return (max(0, expires - date), .expires)
        case .invalid?: return (0, .expires)
        case nil: break
        }
        guard heuristicallyCacheable.contains(status) || control.isPublic,
            case .valid(let lastModified)? = Self.date(headers, "Last-Modified"), lastModified <= date
        else { return (0, .none) }
        return ((date - lastModified) / 10, .heuristic)
    }

    /// §4.2.3: the age the response had when it arrived (the larger of what its `Date` shows
    /// and what its `Age` says plus the time it took), plus the time it has been stored.
    static func age(headers: [HTTPHeader], date: Int, requestTime: Int, responseTime: Int, now: Int) -> Int {
        // §5.1: a list's first member; a value that is not a number is ignored.
        let ageValue =
            headers.value(for: "Age").flatMap { value in
                CacheControl.seconds(
                    value.split(separator: ",", omittingEmptySubsequences: false)[0].trimmingHTTPSpaces.description)
            } ?? 0
        let apparentAge = max(0, responseTime - date)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now - responseTime)
        return correctedInitialAge + residentTime
    }

    /// An HTTP-date field's value.
    enum FieldDate: Equatable {
        case valid(Int)
        /// Present but not a date, or given twice with different values.
        case invalid
    }

    /// The field `name` as a date, `nil` when absent.
    static func date(_ headers: [HTTPHeader], _ name: String) -> FieldDate? {
        let values = headers.values(for: name)
        guard let first = values.first else { return nil }
        guard values.allSatisfy({ $0 == first }), let date = HTTPDate.date(from: first) else { return .invalid }
        return .valid(Int(date.timeIntervalSince1970.rounded(.down)))
    }
}
