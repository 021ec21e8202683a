#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an HTTP date (RFC 9110 §5.6.7) in any of the three formats a recipient must accept:
///
/// - IMF-fixdate, the one senders use: `Sun, 06 Nov 1994 08:49:37 GMT`;
/// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`;
/// - C's asctime: `Sun Nov  6 08:49:37 1994`.
///
/// Fields are separated by one space (asctime's one-digit day may be padded with a second): a
/// date spaced otherwise is not one, and a cache takes such an `Expires` as already past.
/// The weekday is checked to be a day's name but not against the date, as the RFC allows.
/// A field out of range (the 31st of April, hour 24) makes the whole date invalid.
package struct HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// The instant `text` names, or `nil` if it is none of the three formats.
    ///
    /// `now` places an RFC 850 two-digit year: one that would be more than 50 years after
    /// `now` is taken to be in the century before.
    package static func date(from text: some StringProtocol, now: Date = Date()) -> Date? {
        // One space between fields (RFC 9110's SP), but the one asctime pads a day with.
        var fields = String(text).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if fields.count == 6, fields[2].isEmpty, fields[3].utf8.count == 1 { fields.remove(at: 2) }
        guard !fields.contains(where: \.isEmpty) else { return nil }
        let day: Int, month: Int, year: Int, clock: String
        switch fields.count {
        case 6:  // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
            guard fields[0].hasSuffix(","), shortDays.contains(String(fields[0].dropLast())), fields[5] == "GMT",
                fields[1].utf8.count == 2, fields[3].utf8.count == 4,
                let parsedDay = number(fields[1]), let parsedMonth = months.firstIndex(of: fields[2]),
                let parsedYear = number(fields[3])
            else { return nil }
            (day, month, year, clock) = (parsedDay, parsedMonth + 1, parsedYear, fields[4])
        case 4:  // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard fields[0].hasSuffix(","), longDays.contains(String(fields[0].dropLast())), fields[3] == "GMT",
                parts.count == 3, parts[0].utf8.count == 2, parts[2].utf8.count == 2,
                let parsedDay = number(parts[0]), let parsedMonth = months.firstIndex(of: parts[1]),
                let twoDigits = number(parts[2])
            else { return nil }
            (day, month, year, clock) = (parsedDay, parsedMonth + 1, fullYear(twoDigits, now: now), fields[2])
        case 5:  // asctime: "Sun" "Nov" "6" "08:49:37" "1994" (the day padded with a space)
            guard shortDays.contains(fields[0]), (1...2).contains(fields[2].utf8.count), fields[4].utf8.count == 4,
                let parsedMonth = months.firstIndex(of: fields[1]), let parsedDay = number(fields[2]),
                let parsedYear = number(fields[4])
            else { return nil }
            (day, month, year, clock) = (parsedDay, parsedMonth + 1, parsedYear, fields[3])
        default:
            return nil
        }
        let time = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.utf8.count == 2 }),
            let hour = number(time[0]), let minute = number(time[1]), let second = number(time[2]),
            hour < 24, minute < 60, second <= 60,  // 60: a leap second
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Digits only (no sign, no spaces), as a number.
    private static func number(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 4,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    private static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        let thisYear = 1970 + Int((now.timeIntervalSince1970 / 86_400 / 365.2425).rounded(.down))
        let candidate = thisYear - thisYear % 100 + twoDigits
        return candidate > thisYear + 50 ? candidate - 100 : candidate
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (the civil-from-days
    /// inverse: years counted from March, so the leap day falls at the end of a year).
    package static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
